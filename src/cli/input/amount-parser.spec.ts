import { parseSol, parseTokens } from './amount-parser';

describe('amounts', () => {
  it('reads SOL into lamports and tokens into base units, exactly', () => {
    expect(parseSol('10')).toBe(10_000_000_000);
    expect(parseSol('0.000000001')).toBe(1);
    expect(parseTokens('1000')).toBe(1_000_000_000n);
    expect(parseTokens('0.5')).toBe(500_000n);
  });

  it.each(['', '-1', '0', '0.0', '1e3', 'abc', '1,5', '0.0000000001'])('rejects SOL %j', (text) => {
    expect(() => parseSol(text)).toThrow(/^bad SOL amount/);
  });

  it('refuses more decimals than the token has and absurd amounts', () => {
    expect(() => parseTokens('0.0000001')).toThrow(/at most 6 decimal places/);
    expect(() => parseSol('1001')).toThrow(/too large/);
  });
});
