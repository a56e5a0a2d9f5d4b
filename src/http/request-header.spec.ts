import { requestHeader } from './request-header';

describe('requestHeader', () => {
  it('gives a header as sent, a repeated one joined as an HTTP list, undefined when absent', () => {
    const req = { headers: { origin: 'https://a.example', 'x-list': ['a', 'b'] } };
    expect(requestHeader(req, 'origin')).toBe('https://a.example');
    expect(requestHeader(req, 'x-list')).toBe('a, b');
    expect(requestHeader(req, 'range')).toBeUndefined();
  });
});
