import { s3ClientErrorAnswer } from './s3-client-error';

function answerTo(code: string) {
  return s3ClientErrorAnswer(Object.assign(new Error('Parse Error'), { code }));
}

describe('s3ClientErrorAnswer', () => {
  it.each([
    ['HPE_INVALID_URL', 'InvalidURI'],
    ['HPE_HEADER_OVERFLOW', 'RequestHeaderSectionTooLarge'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'RequestTimeout'],
    ['HPE_INVALID_METHOD', 'InvalidRequest'],
  ])('answers %s with 400 %s in XML, under a fresh request id', (code, s3Code) => {
    const answer = answerTo(code);
    const id = answer.headers?.['x-amz-request-id'];
    expect([answer.status, answer.contentType]).toEqual([400, 'application/xml']);
    expect(id).toMatch(/^[0-9A-F]{16}$/);
    expect(answer.body).toContain(`<Code>${s3Code}</Code>`);
    expect(answer.body).toContain(`<Resource>/</Resource><RequestId>${id}</RequestId>`);
    expect(answerTo(code).headers?.['x-amz-request-id']).not.toBe(id);
  });
});
