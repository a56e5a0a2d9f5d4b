import { XMLParser } from 'fast-xml-parser';
import type { S3CompletedPart } from '../s3-backend';
import { CHECKSUM_ALGORITHMS, checksumElement } from '../body/checksums';
import { S3Error } from '../s3-error';
import { unquoteEtag } from '../http-header';

/**
 * Request documents (DeleteObjects, CompleteMultipartUpload). Bodies are size-capped before they
 * get here; DTDs are refused outright (no entity expansion, no XML bombs), and entities are
 * decoded by hand so only XML's five and numeric character references exist.
 */
export const MAX_DELETE_KEYS = 1000;
export const MAX_PARTS = 10000;
/** 1000 keys of 1024 bytes, escaped, fit comfortably. */
export const MAX_REQUEST_XML_BYTES = 2 * 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => name === 'Object' || name === 'Part',
});

export interface DeleteObjectsRequest {
  quiet: boolean;
  keys: string[];
}

export function parseDeleteObjects(body: Buffer): DeleteObjectsRequest {
  const root = parseRoot(body, 'Delete');
  const objects = asArray(root.Object);
  if (objects.length === 0) throw malformed('Delete must list at least one Object');
  if (objects.length > MAX_DELETE_KEYS) {
    throw malformed(`Delete may list at most ${MAX_DELETE_KEYS} objects`);
  }
  const keys = objects.map((o) => {
    const key = textOf(record(o).Key);
    if (key === undefined || key === '') throw malformed('each Object needs a non-empty Key');
    return key;
  });
  const quiet = textOf(root.Quiet)?.trim().toLowerCase() === 'true';
  return { quiet, keys };
}

export function parseCompleteMultipartUpload(body: Buffer): S3CompletedPart[] {
  const root = parseRoot(body, 'CompleteMultipartUpload');
  const parts = asArray(root.Part);
  if (parts.length === 0) throw malformed('CompleteMultipartUpload must list at least one Part');
  if (parts.length > MAX_PARTS) throw malformed(`at most ${MAX_PARTS} parts may be listed`);
  return parts.map((p) => {
    const part = record(p);
    const numberText = textOf(part.PartNumber)?.trim() ?? '';
    const etag = textOf(part.ETag)?.trim();
    if (!/^\d{1,5}$/.test(numberText) || Number(numberText) < 1 || Number(numberText) > MAX_PARTS) {
      throw malformed(`PartNumber must be an integer from 1 to ${MAX_PARTS}`);
    }
    if (etag === undefined || etag === '') throw malformed('each Part needs an ETag');
    const checksum = partChecksum(part);
    return {
      partNumber: Number(numberText),
      etag: unquoteEtag(etag),
      ...(checksum ? { checksum } : {}),
    };
  });
}

type XmlRecord = Record<string, unknown>;

function parseRoot(body: Buffer, rootName: string): XmlRecord {
  const text = body.toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    throw malformed('DTDs and entity declarations are not accepted');
  let parsed: unknown;
  try {
    // XML normalises line ends before parsing; numeric references may then still carry a \r.
    parsed = parser.parse(text.replace(/\r\n?/g, '\n'), true);
  } catch {
    throw malformed('the body is not well-formed XML');
  }
  const root = record(parsed)[rootName];
  if (root === undefined) throw malformed(`the root element must be ${rootName}`);
  return record(root);
}

function record(value: unknown): XmlRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as XmlRecord)
    : {};
}

function asArray(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function textOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return decodeEntities(value);
  const inner = record(value)['#text'];
  if (typeof inner === 'string') return decodeEntities(inner);
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return '';
  throw malformed('an element that must hold text holds elements');
}

function decodeEntities(text: string): string {
  return text.replace(/&([^;&]*);?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) throw malformed('a bare & in text');
    switch (name) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
    }
    const code = /^#x[0-9a-fA-F]{1,6}$/.test(name)
      ? parseInt(name.slice(2), 16)
      : /^#[0-9]{1,7}$/.test(name)
        ? parseInt(name.slice(1), 10)
        : NaN;
    if (Number.isNaN(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      throw malformed(`unknown entity &${name};`);
    }
    return String.fromCodePoint(code);
  });
}

function malformed(why: string): S3Error {
  return new S3Error(
    'MalformedXML',
    `the XML you provided was not well-formed or did not validate against our published schema: ${why}`,
  );
}

/** A part's `ChecksumCRC32` (…`ChecksumSHA256`) in CompleteMultipartUpload, when given. */
function partChecksum(part: Record<string, unknown>): S3CompletedPart['checksum'] {
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = textOf(part[checksumElement(algorithm)])?.trim();
    if (value) return { algorithm, value };
  }
  return undefined;
}
