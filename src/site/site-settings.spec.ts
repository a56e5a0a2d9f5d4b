import { parseSiteSettings } from './site-settings';

const parse = (value: unknown, allowAny = false) =>
  parseSiteSettings(
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    allowAny,
  );

describe('parseSiteSettings', () => {
  it('reads every field', () => {
    const { overrides, warnings } = parse({
      spa_fallback: true,
      max_age_secs: 3600,
      cors_origins: ['https://reader.example'],
      connect_origins: ['https://api.example', 'wss://live.example'],
    });
    expect(warnings).toEqual([]);
    expect(overrides.spaFallback).toBe(true);
    expect(overrides.maxAgeSecs).toBe(3600);
    expect(overrides.corsOrigins?.origins).toEqual(['https://reader.example']);
    expect(overrides.connectOrigins?.origins).toEqual([
      'https://api.example',
      'wss://live.example',
    ]);
  });

  it('leaves absent fields absent (the gateway setting applies)', () => {
    expect(parse({}).overrides).toEqual({});
    expect(parse({ spa_fallback: false }).overrides).toEqual({ spaFallback: false });
  });

  it('ignores unknown fields silently', () => {
    expect(parse({ redirects: [{ from: '/a', to: '/b' }], headers: {} })).toEqual({
      overrides: {},
      warnings: [],
    });
  });

  it('ignores a field of the wrong type on its own, with a warning', () => {
    const { overrides, warnings } = parse({
      spa_fallback: 'yes',
      max_age_secs: 60,
      cors_origins: 'https://a.example',
    });
    expect(overrides).toEqual({ maxAgeSecs: 60 });
    expect(warnings).toEqual([
      '_site.json: spa_fallback must be a boolean: ignored',
      '_site.json: cors_origins must be an array of origins: ignored',
    ]);
  });

  it.each([[-1], [31536001], [1.5], ['60'], [null], [1e300]])(
    'refuses max_age_secs %p',
    (value) => {
      const { overrides, warnings } = parse({ max_age_secs: value });
      expect(overrides.maxAgeSecs).toBeUndefined();
      expect(warnings[0]).toMatch(/max_age_secs must be an integer from 0 to 31536000/);
    },
  );

  it('accepts max_age_secs at both limits', () => {
    expect(parse({ max_age_secs: 0 }).overrides.maxAgeSecs).toBe(0);
    expect(parse({ max_age_secs: 31536000 }).overrides.maxAgeSecs).toBe(31536000);
  });

  it('drops origin entries that could inject header text or CSP directives', () => {
    const { overrides, warnings } = parse({
      connect_origins: [
        'https://ok.example',
        "https://x.example; script-src 'unsafe-eval'",
        'https://y.example\r\nX: 1',
      ],
    });
    expect(overrides.connectOrigins?.origins).toEqual(['https://ok.example']);
    expect(warnings).toHaveLength(2);
    for (const warning of warnings) expect(warning).not.toMatch(/[\r\n]/);
  });

  it('takes * in origin lists only when the operator allows it', () => {
    expect(parse({ cors_origins: ['*'] }, true).overrides.corsOrigins?.any).toBe(true);
    const refused = parse({ cors_origins: ['*'] }, false);
    expect(refused.overrides.corsOrigins?.any).toBe(false);
    expect(refused.warnings[0]).toMatch(/cors_origins\[0\] "\*" is not allowed here dropped/);
  });

  it('uses at most 64 origin entries', () => {
    const many = Array.from({ length: 70 }, (_, i) => `https://h${i}.example`);
    const { overrides, warnings } = parse({ cors_origins: many });
    expect(overrides.corsOrigins?.origins).toHaveLength(64);
    expect(warnings[0]).toMatch(/only the first 64 entries/);
  });

  it.each([
    ['not JSON', '{ "spa_fallback": true', /is not JSON/],
    ['a JSON array', '[1, 2]', /is not a JSON object/],
    ['JSON null', 'null', /is not a JSON object/],
    ['a JSON string', '"spa"', /is not a JSON object/],
    ['empty', '', /is not JSON/],
  ])('ignores a file that is %s', (_what, text, message) => {
    const { overrides, warnings } = parse(text);
    expect(overrides).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(message);
  });

  it('ignores a file that is not UTF-8', () => {
    const { overrides, warnings } = parseSiteSettings(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), false);
    expect(overrides).toEqual({});
    expect(warnings[0]).toMatch(/is not UTF-8/);
  });

  it('ignores a file over 64 KiB, even valid JSON', () => {
    const big = JSON.stringify({ spa_fallback: true, pad: 'x'.repeat(64 * 1024) });
    const { overrides, warnings } = parse(big);
    expect(overrides).toEqual({});
    expect(warnings[0]).toMatch(/over the 65536-byte limit/);
  });

  it('reads a file with a byte-order mark', () => {
    expect(parse('\ufeff{"spa_fallback":true}').overrides.spaFallback).toBe(true);
  });

  it('is not fooled by __proto__ keys', () => {
    const { overrides } = parse('{"__proto__":{"spa_fallback":true}}');
    expect(overrides.spaFallback).toBeUndefined();
    expect(({} as Record<string, unknown>).spa_fallback).toBeUndefined();
  });
});
