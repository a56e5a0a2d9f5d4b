import type { IncomingHttpHeaders } from 'node:http';
import { checksumElement } from '../body/checksums';
import type { S3ByteRange, S3ObjectHead } from '../s3-backend';
import { S3Error } from '../s3-error';
import { MAX_PARTS } from '../xml/s3-xml-requests';
import { el, group, XmlNode, xmlDocument } from '../xml/xml-writer';

/**
 * The parts of an object: those of the multipart upload it was completed from, when their
 * boundaries were kept, else one part (a PutObject, a copy, or a name `tape deploy` wrote).
 * Used by GET/HEAD `partNumber` and GetObjectAttributes, as S3 answers both.
 */

/** GetObject/HeadObject `partNumber`, validated (1..10000), or undefined when absent. */
export function requestedPartNumber(
  query: Map<string, string>,
  headers: IncomingHttpHeaders,
): number | undefined {
  const raw = query.get('partNumber');
  if (raw === undefined) return undefined;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PARTS) {
    throw new S3Error('InvalidArgument', 'part number must be an integer between 1 and 10000', {
      ArgumentName: 'partNumber',
      ArgumentValue: raw,
    });
  }
  if (headers.range !== undefined) {
    throw new S3Error(
      'InvalidRequest',
      'cannot specify both Range header and partNumber query parameter',
    );
  }
  return Number(raw);
}

export interface PartSlice {
  /** The part's bytes; undefined: the whole object (an object of one part). */
  range?: S3ByteRange;
  /** `x-amz-mp-parts-count`: only for an object made of parts, as S3 sends it. */
  partsCount?: number;
  /** The part's own checksum (base64, in the object's algorithm), when kept. */
  checksum?: string;
}

/** The bytes of part `n` of the object; 400 InvalidPart when it has no such part. */
export function partSlice(head: S3ObjectHead, n: number): PartSlice {
  const sizes = head.parts?.sizes;
  if (!sizes) {
    if (n === 1) return {};
    throw noSuchPart(n, 1);
  }
  if (n > sizes.length) throw noSuchPart(n, sizes.length);
  let start = 0;
  for (let i = 0; i < n - 1; i++) start += sizes[i];
  const size = sizes[n - 1];
  const checksum = head.parts?.checksums?.[n - 1];
  return {
    partsCount: sizes.length,
    ...(size > 0 ? { range: { start, end: start + size - 1 } } : {}),
    ...(checksum !== undefined ? { checksum } : {}),
  };
}

function noSuchPart(n: number, count: number): S3Error {
  return new S3Error(
    'InvalidPart',
    `the requested part does not exist (this object has ${count} part${count === 1 ? '' : 's'})`,
    { PartNumber: String(n) },
  );
}

const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

/**
 * GetObjectAttributes (`GET /b/k?attributes`): the attributes named by `x-amz-object-attributes`,
 * ObjectParts paginated by `x-amz-max-parts` (default 1000) and `x-amz-part-number-marker`.
 */
export function objectAttributesXml(head: S3ObjectHead, headers: IncomingHttpHeaders): string {
  const wanted = requestedAttributes(headers);
  const children: XmlNode[] = [];
  if (wanted.has('ETag')) children.push(el('ETag', head.etag));
  if (wanted.has('Checksum') && head.checksum) {
    children.push(
      group('Checksum', [
        el(checksumElement(head.checksum.algorithm), head.checksum.value),
        el('ChecksumType', head.checksum.type),
      ]),
    );
  }
  if (wanted.has('ObjectParts') && head.parts) children.push(objectPartsXml(head, headers));
  if (wanted.has('StorageClass')) children.push(el('StorageClass', 'STANDARD'));
  if (wanted.has('ObjectSize')) children.push(el('ObjectSize', head.size));
  return xmlDocument('GetObjectAttributesResponse', children);
}

function requestedAttributes(headers: IncomingHttpHeaders): Set<Attribute> {
  const raw = headers['x-amz-object-attributes'];
  const names = (Array.isArray(raw) ? raw.join(',') : (raw ?? ''))
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) {
    throw new S3Error(
      'InvalidArgument',
      'x-amz-object-attributes must name at least one attribute',
      {
        ArgumentName: 'x-amz-object-attributes',
      },
    );
  }
  const unknown = names.find((n) => !(ATTRIBUTES as readonly string[]).includes(n));
  if (unknown !== undefined) {
    throw new S3Error('InvalidArgument', `unknown object attribute ${unknown}`, {
      ArgumentName: 'x-amz-object-attributes',
      ArgumentValue: unknown,
    });
  }
  return new Set(names as Attribute[]);
}

function objectPartsXml(head: S3ObjectHead, headers: IncomingHttpHeaders): XmlNode {
  const sizes = head.parts?.sizes ?? [];
  const checksums = head.parts?.checksums;
  const maxParts = Math.min(integerHeader(headers, 'x-amz-max-parts', 1000), 1000);
  const marker = integerHeader(headers, 'x-amz-part-number-marker', 0);
  const first = Math.min(marker, sizes.length);
  const last = Math.min(first + maxParts, sizes.length);
  const truncated = last < sizes.length;
  const parts: XmlNode[] = [];
  for (let i = first; i < last; i++) {
    parts.push(
      group('Part', [
        ...(checksums?.[i] && head.checksum
          ? [el(checksumElement(head.checksum.algorithm), checksums[i])]
          : []),
        el('PartNumber', i + 1),
        el('Size', sizes[i]),
      ]),
    );
  }
  return group('ObjectParts', [
    // The API names it TotalPartsCount; on the wire it is <PartsCount> (the SDKs' model).
    el('PartsCount', sizes.length),
    el('PartNumberMarker', marker),
    el('NextPartNumberMarker', truncated ? last : undefined),
    el('MaxParts', maxParts),
    el('IsTruncated', truncated),
    ...parts,
  ]);
}

function integerHeader(headers: IncomingHttpHeaders, name: string, fallback: number): number {
  const raw = headers[name];
  if (raw === undefined) return fallback;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (!/^\d{1,5}$/.test(text.trim())) {
    throw new S3Error('InvalidArgument', `${name} must be an integer`, { ArgumentName: name });
  }
  return Number(text.trim());
}
