/**
 * Credentials never reach a log line. A presigned S3 URL is a bearer token for up to 7 days and
 * an Authorization header replays within its 15-minute window, so both are redacted wherever
 * they may appear: URLs in the access log, error messages and stack traces that quote a URL or a
 * header, and header objects.
 *
 * What is kept: the path, every other query parameter, and the access key id (the first part of
 * `X-Amz-Credential` / `Credential=`), as S3's own server access logs do: it names the credential
 * for an operator chasing abuse and grants nothing without the secret. Removed: signatures
 * (`X-Amz-Signature`, `Signature`, the upload route's `x-tape-signature`), session tokens
 * (`X-Amz-Security-Token`), SigV2's `AWSAccessKeyId`, and the credential scope after the key id.
 */
export const REDACTED = 'REDACTED';

/** Query or header parameters (`name=value`) whose value is a secret. */
const SECRET_PARAMETERS =
  /(^|[?&;,\s])(x-amz-signature|x-amz-security-token|signature|awsaccesskeyid|x-amz-credential|credential)=([^&#\s,;"'<>]*)/gi;

/** Header lines (`Name: value`) whose whole value is a secret, as quoted in error messages. */
const SECRET_HEADER_LINES =
  /\b(authorization|x-amz-security-token|x-tape-signature|cookie)(\s*:\s*)([^\r\n"]*)/gi;

/** Header names whose value is redacted in header objects. */
const SECRET_HEADERS = new Set(['x-amz-security-token', 'x-tape-signature', 'cookie']);

/** The text with every credential value replaced by `REDACTED` (see the module comment). */
export function redactSecrets(text: string): string {
  if (!text.includes('=') && !text.includes(':')) return text;
  return text
    .replace(SECRET_PARAMETERS, redactParameter)
    .replace(SECRET_HEADER_LINES, (_match, name: string, colon: string, value: string) => {
      const kept = name.toLowerCase() === 'authorization' ? redactAuthorization(value) : REDACTED;
      return `${name}${colon}${kept}`;
    });
}

/**
 * A copy of `headers` safe to log: `Authorization` keeps its scheme and key id only (its
 * signature is redacted), session tokens, upload signatures and cookies are replaced.
 */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined) out[name] = value;
    else if (SECRET_HEADERS.has(lower)) out[name] = REDACTED;
    else if (lower === 'authorization') {
      out[name] = Array.isArray(value)
        ? value.map(redactAuthorization)
        : redactAuthorization(value);
    } else out[name] = value;
  }
  return out;
}

function redactAuthorization(value: string): string {
  // SigV4: `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`.
  if (/^AWS4-/i.test(value)) return value.replace(SECRET_PARAMETERS, redactParameter);
  // Any other scheme (Basic, Bearer, SigV2 `AWS key:signature`): the scheme alone.
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${REDACTED}` : REDACTED;
}

function redactParameter(_match: string, separator: string, name: string, value: string): string {
  return `${separator}${name}=${isCredential(name) ? keepKeyId(value) : REDACTED}`;
}

function isCredential(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'x-amz-credential' || lower === 'credential';
}

/** `AKID/20260101/us-east-1/s3/aws4_request` (slash raw or `%2F`) -> `AKID/REDACTED`. */
function keepKeyId(value: string): string {
  const end = /\/|%2f/i.exec(value);
  return end ? `${value.slice(0, end.index)}/${REDACTED}` : REDACTED;
}
