import { REDACTED, redactHeaders, redactSecrets } from './redact';

const SIG = 'a3f1c9e0b7d24e55a3f1c9e0b7d24e55a3f1c9e0b7d24e55a3f1c9e0b7d24e55';

describe('redactSecrets', () => {
  it('removes the signature, token and credential scope of a presigned URL, keeping the path, the key id and the rest', () => {
    const url =
      '/bucket/dir/file.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
      '&X-Amz-Credential=AKIDEXAMPLE%2F20261123%2Fus-east-1%2Fs3%2Faws4_request' +
      '&X-Amz-Date=20261123T120000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host' +
      `&X-Amz-Security-Token=FwoGZXIvYXdzEBYaDH&X-Amz-Signature=${SIG}`;
    const out = redactSecrets(url);
    expect(out).not.toContain(SIG);
    expect(out).not.toContain('FwoGZXIvYXdzEBYaDH');
    expect(out).not.toContain('20261123%2Fus-east-1');
    expect(out).toBe(
      '/bucket/dir/file.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        `&X-Amz-Credential=AKIDEXAMPLE/${REDACTED}` +
        '&X-Amz-Date=20261123T120000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host' +
        `&X-Amz-Security-Token=${REDACTED}&X-Amz-Signature=${REDACTED}`,
    );
  });

  it('matches parameter names in any case and in first position; SigV2 parameters too', () => {
    expect(redactSecrets(`/b/k?x-amz-signature=${SIG}&partNumber=2`)).toBe(
      `/b/k?x-amz-signature=${REDACTED}&partNumber=2`,
    );
    expect(redactSecrets('/b/k?AWSAccessKeyId=AKID&Expires=1&Signature=abc%2Bdef%3D')).toBe(
      `/b/k?AWSAccessKeyId=${REDACTED}&Expires=1&Signature=${REDACTED}`,
    );
  });

  it('leaves URLs without credentials untouched, including names that merely end like one', () => {
    const plain = '/b/k?list-type=2&prefix=a%3Db&my-signature=keep';
    expect(redactSecrets(plain)).toBe(plain);
  });

  it('redacts an Authorization header quoted in an error message or stack trace', () => {
    const text =
      'Error: upstream refused\n  Authorization: AWS4-HMAC-SHA256 ' +
      `Credential=AKIDEXAMPLE/20261123/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${SIG}\n` +
      '  Authorization: Bearer eyJhbGciOi.secret\n  x-tape-signature: 3xYz';
    const out = redactSecrets(text);
    expect(out).not.toContain(SIG);
    expect(out).not.toContain('eyJhbGciOi');
    expect(out).not.toContain('3xYz');
    expect(out).toContain(`Credential=AKIDEXAMPLE/${REDACTED}, SignedHeaders=host;x-amz-date`);
    expect(out).toContain(`Authorization: Bearer ${REDACTED}`);
  });
});

describe('redactHeaders', () => {
  it('keeps the scheme and key id of Authorization, replaces tokens and upload signatures', () => {
    const out = redactHeaders({
      host: 'gw',
      Authorization: `AWS4-HMAC-SHA256 Credential=AKID/20261123/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${SIG}`,
      'x-amz-security-token': 'tok',
      'x-tape-signature': 'sig',
      cookie: ['a=b'],
    });
    expect(out).toEqual({
      host: 'gw',
      Authorization: `AWS4-HMAC-SHA256 Credential=AKID/${REDACTED}, SignedHeaders=host, Signature=${REDACTED}`,
      'x-amz-security-token': REDACTED,
      'x-tape-signature': REDACTED,
      cookie: REDACTED,
    });
    expect(redactHeaders({ authorization: 'Basic dXNlcjpwYXNz' })).toEqual({
      authorization: `Basic ${REDACTED}`,
    });
  });
});
