import { S3Error } from '../s3-error';
import { splitQuery } from './sigv4-canonical';
import { percentDecodeUtf8 } from '../uri-encoding';

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** AWS's limit for `X-Amz-Expires`: seven days. */
export const MAX_PRESIGN_EXPIRY_SECS = 604800;

const PAYLOAD_MODES = new Set([
  UNSIGNED_PAYLOAD,
  STREAMING_SIGNED,
  STREAMING_SIGNED_TRAILER,
  STREAMING_UNSIGNED_TRAILER,
]);

/** What the signature verifier needs from an HTTP request, exactly as it arrived. */
export interface SigV4Request {
  method: string;
  /** Path as sent, percent-encoded, without the query. */
  rawPath: string;
  /** Query as sent, without `?`. */
  rawQuery: string;
  /** Node's `rawHeaders`: [name, value, name, value, …] in arrival order. */
  rawHeaders: string[];
}

export interface SigV4Scope {
  date: string;
  region: string;
  service: string;
}

/** The claims of a request's signature, before the secret is known. */
export interface SigV4Claims {
  kind: 'header' | 'presigned';
  accessKeyId: string;
  scope: SigV4Scope;
  /** ISO 8601 basic: `20130524T000000Z`. */
  timestamp: string;
  signedHeaders: string[];
  signature: string;
  /** Presigned URLs only. */
  expiresSecs?: number;
  /** The last line of the canonical request (a hex SHA-256 or one of the literal modes). */
  payloadHash: string;
}

/** Reads the Authorization header or the X-Amz-* query parameters; null when neither is there. */
export function parseSigV4Claims(request: SigV4Request): SigV4Claims | null {
  const authorization = headerValue(request.rawHeaders, 'authorization');
  const query = new Map(splitQuery(request.rawQuery).map(([n, v]) => [n, v] as const));
  const presigned = query.has('X-Amz-Algorithm') || query.has('X-Amz-Signature');
  if (authorization !== undefined && presigned) {
    throw new S3Error(
      'InvalidArgument',
      'only one auth mechanism allowed; send either the Authorization header or X-Amz-Signature',
    );
  }
  if (authorization !== undefined) return parseHeaderClaims(authorization, request.rawHeaders);
  if (presigned) return parsePresignedClaims(query, request.rawHeaders);
  return null;
}

function parseHeaderClaims(authorization: string, rawHeaders: string[]): SigV4Claims {
  const malformed = (why: string) =>
    new S3Error('AuthorizationHeaderMalformed', `the authorization header is malformed: ${why}`);
  const space = authorization.indexOf(' ');
  const algorithm = space < 0 ? authorization : authorization.slice(0, space);
  if (algorithm !== SIGV4_ALGORITHM) {
    throw new S3Error(
      'InvalidRequest',
      `the authorization mechanism you have provided is not supported; use ${SIGV4_ALGORITHM}`,
    );
  }
  const fields = new Map<string, string>();
  for (const part of authorization.slice(space + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature)
    throw malformed('Credential, SignedHeaders and Signature are required');
  const { accessKeyId, scope } = parseCredential(credential, malformed);
  const timestamp = requestTimestamp(rawHeaders);
  if (timestamp.slice(0, 8) !== scope.date) {
    throw malformed(
      `credential date ${scope.date} does not match the request date ${timestamp.slice(0, 8)}`,
    );
  }
  const payloadHash = headerValue(rawHeaders, 'x-amz-content-sha256')?.trim() ?? EMPTY_SHA256;
  if (!PAYLOAD_MODES.has(payloadHash) && !/^[0-9a-fA-F]{64}$/.test(payloadHash)) {
    throw new S3Error(
      'InvalidArgument',
      `x-amz-content-sha256 must be a hex SHA-256 or one of ${[...PAYLOAD_MODES].join(', ')}`,
    );
  }
  return {
    kind: 'header',
    accessKeyId,
    scope,
    timestamp,
    signedHeaders: parseSignedHeaders(signedHeaders, malformed),
    signature: parseSignature(signature, malformed),
    payloadHash,
  };
}

function parsePresignedClaims(query: Map<string, string>, rawHeaders: string[]): SigV4Claims {
  const malformed = (why: string) =>
    new S3Error('AuthorizationQueryParametersError', `the presigned URL is malformed: ${why}`);
  const param = (name: string): string => {
    const raw = query.get(name);
    const value = raw === undefined ? null : percentDecodeUtf8(raw);
    if (value === null || value === '') throw malformed(`${name} is required`);
    return value;
  };
  if (param('X-Amz-Algorithm') !== SIGV4_ALGORITHM)
    throw malformed(`X-Amz-Algorithm must be ${SIGV4_ALGORITHM}`);
  const { accessKeyId, scope } = parseCredential(param('X-Amz-Credential'), malformed);
  const timestamp = param('X-Amz-Date');
  if (!isIsoBasic(timestamp)) throw malformed('X-Amz-Date must look like 20130524T000000Z');
  if (timestamp.slice(0, 8) !== scope.date)
    throw malformed('the credential date does not match X-Amz-Date');
  const expires = param('X-Amz-Expires');
  if (!/^-?\d{1,7}$/.test(expires)) {
    throw malformed(
      `X-Amz-Expires must be a number of seconds between 0 and ${MAX_PRESIGN_EXPIRY_SECS}`,
    );
  }
  // A URL that expired before it was made, or outlives the longest life a signature may have, is
  // refused as expired (403, as Ceph answers; final for every client) rather than malformed.
  if (Number(expires) < 0 || Number(expires) > MAX_PRESIGN_EXPIRY_SECS) {
    throw new S3Error(
      'AccessDenied',
      `request has expired: X-Amz-Expires must be between 0 and ${MAX_PRESIGN_EXPIRY_SECS} seconds`,
      { 'X-Amz-Expires': expires },
    );
  }
  const signedHeaders = parseSignedHeaders(param('X-Amz-SignedHeaders'), malformed);
  // A presigned URL signs no body: UNSIGNED-PAYLOAD, unless the URL itself names a payload hash
  // (the JS SDK's presigner hoists X-Amz-Content-Sha256 into the query) or a signed header does.
  const fromQuery = query.has('X-Amz-Content-Sha256') ? param('X-Amz-Content-Sha256') : undefined;
  const fromHeader = signedHeaders.includes('x-amz-content-sha256')
    ? headerValue(rawHeaders, 'x-amz-content-sha256')?.trim()
    : undefined;
  const declared = fromQuery ?? fromHeader;
  const payloadHash =
    declared && (declared === UNSIGNED_PAYLOAD || /^[0-9a-fA-F]{64}$/.test(declared))
      ? declared
      : UNSIGNED_PAYLOAD;
  return {
    kind: 'presigned',
    accessKeyId,
    scope,
    timestamp,
    signedHeaders,
    signature: parseSignature(param('X-Amz-Signature'), malformed),
    expiresSecs: Number(expires),
    payloadHash,
  };
}

function parseCredential(
  value: string,
  malformed: (why: string) => S3Error,
): { accessKeyId: string; scope: SigV4Scope } {
  const parts = value.split('/');
  if (parts.length !== 5 || parts.some((p) => p === ''))
    throw malformed('Credential must be <access key id>/<date>/<region>/s3/aws4_request');
  const [accessKeyId, date, region, service, terminator] = parts;
  if (!/^\d{8}$/.test(date)) throw malformed(`the credential date ${date} is not YYYYMMDD`);
  if (service !== 's3') throw malformed(`the credential service must be s3, not ${service}`);
  if (terminator !== 'aws4_request') throw malformed('the credential must end with aws4_request');
  return { accessKeyId, scope: { date, region, service } };
}

function parseSignedHeaders(value: string, malformed: (why: string) => S3Error): string[] {
  const names = value.split(';');
  if (
    names.some((n) => n === '' || n !== n.toLowerCase() || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(n))
  ) {
    throw malformed('SignedHeaders must be lower-case header names separated by ;');
  }
  if (!names.includes('host')) throw malformed('SignedHeaders must include host');
  return names;
}

function parseSignature(value: string, malformed: (why: string) => S3Error): string {
  if (!/^[0-9a-f]{64}$/.test(value))
    throw malformed('the signature must be 64 lower-case hex digits');
  return value;
}

/** x-amz-date, else the Date header converted to ISO 8601 basic. */
function requestTimestamp(rawHeaders: string[]): string {
  const amzDate = headerValue(rawHeaders, 'x-amz-date')?.trim();
  if (amzDate !== undefined) {
    if (!isIsoBasic(amzDate))
      throw new S3Error('AccessDenied', 'x-amz-date must look like 20130524T000000Z');
    return amzDate;
  }
  const date = headerValue(rawHeaders, 'date');
  const millis = date === undefined ? NaN : Date.parse(date);
  if (Number.isNaN(millis))
    throw new S3Error(
      'AccessDenied',
      'AWS authentication requires a valid Date or x-amz-date header',
    );
  return toIsoBasic(new Date(millis));
}

export function isIsoBasic(value: string): boolean {
  return /^\d{8}T\d{6}Z$/.test(value) && !Number.isNaN(isoBasicToMillis(value));
}

export function isoBasicToMillis(value: string): number {
  const iso = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}T${value.slice(9, 11)}:${value.slice(11, 13)}:${value.slice(13, 15)}Z`;
  return Date.parse(iso);
}

export function toIsoBasic(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** All values of a header joined with `,` (as SigV4 does), or undefined when absent. */
export function headerValue(rawHeaders: string[], lowerName: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() !== lowerName) continue;
    found = found === undefined ? rawHeaders[i + 1] : `${found},${rawHeaders[i + 1]}`;
  }
  return found;
}
