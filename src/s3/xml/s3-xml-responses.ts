import type { S3Bucket, S3MultipartUploadInfo, S3ObjectInfo, S3PartInfo } from '../s3-backend';
import { checksumElement } from '../body/checksums';
import type { ObjectChecksum } from '../object-metadata';
import type { S3Error } from '../s3-error';
import { awsUriEncode } from '../uri-encoding';
import { el, group, XmlChildren, xmlDocument, XmlNode, xmlTextDocument } from './xml-writer';

/** Response documents of the S3 operations, shaped as Amazon S3 writes them. */

export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

/** `encoding-type=url`: keys, prefixes, delimiters and markers are percent-encoded (UTF-8). */
export type KeyEncoder = (text: string) => string;
export const urlKeyEncoder: KeyEncoder = (text) => awsUriEncode(text, true);
export const plainKeyEncoder: KeyEncoder = (text) => text;

export function errorXml(error: S3Error, resource: string, requestId: string): string {
  const details: XmlChildren = Object.entries(error.details).map(([name, value]) =>
    el(name, value),
  );
  return xmlDocument(
    'Error',
    [
      el('Code', error.code),
      el('Message', error.message),
      ...details,
      el('Resource', resource),
      el('RequestId', requestId),
    ],
    '',
  );
}

export function listBucketsXml(buckets: S3Bucket[], ownerId: string): string {
  return xmlDocument('ListAllMyBucketsResult', [
    group('Owner', [el('ID', ownerId), el('DisplayName', ownerId)]),
    group(
      'Buckets',
      buckets.map((b) => group('Bucket', [el('Name', b.name), el('CreationDate', b.createdAt)])),
    ),
  ]);
}

/** us-east-1 is written as an empty LocationConstraint, as S3 does. */
export function locationXml(region: string): string {
  return xmlTextDocument('LocationConstraint', region === 'us-east-1' ? '' : region);
}

/** `owner`: the ID (and display name) each object's <Owner> shows; none when undefined. */
function contentsXml(objects: S3ObjectInfo[], encode: KeyEncoder, owner?: string): XmlChildren {
  return objects.map((o) =>
    group('Contents', [
      el('Key', encode(o.key)),
      el('LastModified', o.lastModified),
      el('ETag', quoteEtag(o.etag)),
      el('Size', o.size),
      ...(owner === undefined ? [] : [group('Owner', [el('ID', owner), el('DisplayName', owner)])]),
      el('StorageClass', 'STANDARD'),
    ]),
  );
}

function prefixesXml(prefixes: string[], encode: KeyEncoder): XmlChildren {
  return prefixes.map((p) => group('CommonPrefixes', [el('Prefix', encode(p))]));
}

export interface ListV2Xml {
  bucket: string;
  prefix: string;
  delimiter: string;
  maxKeys: number;
  startAfter?: string;
  continuationToken?: string;
  nextContinuationToken?: string;
  isTruncated: boolean;
  contents: S3ObjectInfo[];
  commonPrefixes: string[];
  urlEncoded: boolean;
  /** With fetch-owner=true: the owner shown on each object. */
  owner?: string;
}

export function listObjectsV2Xml(r: ListV2Xml): string {
  const encode = r.urlEncoded ? urlKeyEncoder : plainKeyEncoder;
  return xmlDocument('ListBucketResult', [
    el('Name', r.bucket),
    el('Prefix', encode(r.prefix)),
    el('Delimiter', r.delimiter === '' ? undefined : encode(r.delimiter)),
    el('MaxKeys', r.maxKeys),
    el('EncodingType', r.urlEncoded ? 'url' : undefined),
    el('KeyCount', r.contents.length + r.commonPrefixes.length),
    el('IsTruncated', r.isTruncated),
    el('ContinuationToken', r.continuationToken),
    el('NextContinuationToken', r.nextContinuationToken),
    el('StartAfter', r.startAfter === undefined ? undefined : encode(r.startAfter)),
    ...contentsXml(r.contents, encode, r.owner),
    ...prefixesXml(r.commonPrefixes, encode),
  ]);
}

export interface ListV1Xml {
  bucket: string;
  prefix: string;
  delimiter: string;
  marker: string;
  nextMarker?: string;
  maxKeys: number;
  isTruncated: boolean;
  contents: S3ObjectInfo[];
  commonPrefixes: string[];
  urlEncoded: boolean;
  /** The owner shown on each object (v1 always shows it). */
  owner: string;
}

export function listObjectsV1Xml(r: ListV1Xml): string {
  const encode = r.urlEncoded ? urlKeyEncoder : plainKeyEncoder;
  return xmlDocument('ListBucketResult', [
    el('Name', r.bucket),
    // v1 encodes keys, markers and the delimiter but not the prefix (botocore decodes v1's
    // Prefix as sent, unlike v2's).
    el('Prefix', r.prefix),
    el('Marker', encode(r.marker)),
    el('NextMarker', r.nextMarker === undefined ? undefined : encode(r.nextMarker)),
    el('MaxKeys', r.maxKeys),
    el('Delimiter', r.delimiter === '' ? undefined : encode(r.delimiter)),
    el('EncodingType', r.urlEncoded ? 'url' : undefined),
    el('IsTruncated', r.isTruncated),
    ...contentsXml(r.contents, encode, r.owner),
    ...prefixesXml(r.commonPrefixes, encode),
  ]);
}

export function initiateMultipartXml(bucket: string, key: string, uploadId: string): string {
  return xmlDocument('InitiateMultipartUploadResult', [
    el('Bucket', bucket),
    el('Key', key),
    el('UploadId', uploadId),
  ]);
}

export function completeMultipartXml(
  location: string,
  bucket: string,
  key: string,
  etag: string,
  checksum?: ObjectChecksum,
): string {
  return xmlDocument('CompleteMultipartUploadResult', [
    el('Location', location),
    el('Bucket', bucket),
    el('Key', key),
    el('ETag', quoteEtag(etag)),
    ...checksumElements(checksum),
  ]);
}

export function copyPartXml(etag: string, lastModified: Date): string {
  return xmlDocument('CopyPartResult', [
    el('LastModified', lastModified),
    el('ETag', quoteEtag(etag)),
  ]);
}

export function copyObjectXml(etag: string, lastModified: Date, checksum?: ObjectChecksum): string {
  return xmlDocument('CopyObjectResult', [
    el('LastModified', lastModified),
    el('ETag', quoteEtag(etag)),
    ...checksumElements(checksum),
  ]);
}

/** `<ChecksumCRC32>…</ChecksumCRC32><ChecksumType>…</ChecksumType>` of an object that has one. */
function checksumElements(checksum: ObjectChecksum | undefined): XmlNode[] {
  if (!checksum) return [];
  return [
    el(checksumElement(checksum.algorithm), checksum.value),
    el('ChecksumType', checksum.type),
  ];
}

export interface ListPartsXml {
  bucket: string;
  key: string;
  uploadId: string;
  partNumberMarker: number;
  nextPartNumberMarker?: number;
  maxParts: number;
  isTruncated: boolean;
  parts: S3PartInfo[];
}

export function listPartsXml(r: ListPartsXml): string {
  return xmlDocument('ListPartsResult', [
    el('Bucket', r.bucket),
    el('Key', r.key),
    el('UploadId', r.uploadId),
    el('StorageClass', 'STANDARD'),
    el('PartNumberMarker', r.partNumberMarker),
    el('NextPartNumberMarker', r.nextPartNumberMarker),
    el('MaxParts', r.maxParts),
    el('IsTruncated', r.isTruncated),
    ...r.parts.map((p) =>
      group('Part', [
        el('PartNumber', p.partNumber),
        el('LastModified', p.lastModified),
        el('ETag', quoteEtag(p.etag)),
        el('Size', p.size),
        ...(p.checksum && p.checksumAlgorithm
          ? [el(checksumElement(p.checksumAlgorithm), p.checksum)]
          : []),
      ]),
    ),
  ]);
}

export interface ListUploadsXml {
  bucket: string;
  prefix: string;
  delimiter: string;
  keyMarker: string;
  uploadIdMarker: string;
  nextKeyMarker?: string;
  nextUploadIdMarker?: string;
  maxUploads: number;
  isTruncated: boolean;
  uploads: S3MultipartUploadInfo[];
  commonPrefixes: string[];
  urlEncoded: boolean;
}

export function listMultipartUploadsXml(r: ListUploadsXml): string {
  const encode = r.urlEncoded ? urlKeyEncoder : plainKeyEncoder;
  return xmlDocument('ListMultipartUploadsResult', [
    el('Bucket', r.bucket),
    el('KeyMarker', encode(r.keyMarker)),
    el('UploadIdMarker', r.uploadIdMarker),
    el('NextKeyMarker', r.nextKeyMarker === undefined ? undefined : encode(r.nextKeyMarker)),
    el('NextUploadIdMarker', r.nextUploadIdMarker),
    el('Prefix', encode(r.prefix)),
    el('Delimiter', r.delimiter === '' ? undefined : encode(r.delimiter)),
    el('MaxUploads', r.maxUploads),
    el('EncodingType', r.urlEncoded ? 'url' : undefined),
    el('IsTruncated', r.isTruncated),
    ...r.uploads.map((u) =>
      group('Upload', [
        el('Key', encode(u.key)),
        el('UploadId', u.uploadId),
        el('StorageClass', 'STANDARD'),
        el('Initiated', u.initiated),
      ]),
    ),
    ...prefixesXml(r.commonPrefixes, encode),
  ]);
}

export interface DeleteResultEntry {
  key: string;
  error?: { code: string; message: string };
}

/** Quiet mode reports only failures, as S3 does. */
export function deleteResultXml(entries: DeleteResultEntry[], quiet: boolean): string {
  const children: XmlChildren = [];
  for (const entry of entries) {
    if (entry.error) {
      children.push(
        group('Error', [
          el('Key', entry.key),
          el('Code', entry.error.code),
          el('Message', entry.error.message),
        ]),
      );
    } else if (!quiet) {
      children.push(group('Deleted', [el('Key', entry.key)]));
    }
  }
  return xmlDocument('DeleteResult', children);
}
