import { parseHost, validateName } from './host-name';

function nameOf(raw: string | string[] | undefined): string {
  const host = parseHost(raw);
  if (host.kind !== 'host') throw new Error(`expected a host, got: ${host.reason}`);
  return host.name;
}

function reasonOf(raw: string | string[] | undefined): string {
  const host = parseHost(raw);
  if (host.kind !== 'invalid') throw new Error(`expected invalid, got host ${host.name}`);
  return host.reason;
}

describe('parseHost', () => {
  it('lower-cases, strips the port and one trailing dot', () => {
    expect(parseHost('Example.COM:8080')).toEqual({
      kind: 'host',
      name: 'example.com',
      port: 8080,
    });
    expect(parseHost('example.com.')).toEqual({ kind: 'host', name: 'example.com' });
    expect(parseHost('example.com.:443')).toEqual({ kind: 'host', name: 'example.com', port: 443 });
    expect(nameOf('localhost')).toBe('localhost');
    expect(nameOf('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(nameOf('a-b.c1.example')).toBe('a-b.c1.example');
  });

  it('takes the single value of a repeated-header array and refuses several', () => {
    expect(nameOf(['example.com'])).toBe('example.com');
    expect(reasonOf(['a.example', 'b.example'])).toBe('more than one host header');
    expect(reasonOf([])).toBe('more than one host header');
  });

  it('refuses a missing or empty host', () => {
    expect(reasonOf(undefined)).toBe('no host');
    expect(reasonOf('')).toBe('no host');
    expect(reasonOf(':80')).toBe('empty host name');
    expect(reasonOf('.')).toBe('empty host name');
  });

  it('refuses IP literals in every spelling', () => {
    for (const raw of [
      '1.2.3.4',
      '1.2.3.4:80',
      '127.1',
      '0x7f.0.0.1',
      '4294967295',
      'foo.123',
      '[::1]',
      '[::1]:80',
      '::1',
      '[fe80::1%25eth0]:8080',
    ]) {
      expect(reasonOf(raw)).toBe('IP literals are not site hosts');
    }
  });

  it('refuses hostile characters', () => {
    expect(reasonOf('exa\0mple.com')).toBe('host has characters outside printable ASCII');
    expect(reasonOf('example.com ')).toBe('host has characters outside printable ASCII');
    expect(reasonOf('exa mple.com')).toBe('host has characters outside printable ASCII');
    expect(reasonOf('example.com\r\nX-Evil: 1')).toBe(
      'host has characters outside printable ASCII',
    );
    expect(reasonOf('bücher.example')).toBe('host has characters outside printable ASCII');
    expect(reasonOf('例え.テスト')).toBe('host has characters outside printable ASCII');
    expect(reasonOf('exam\tple.com')).toBe('host has characters outside printable ASCII');
    expect(reasonOf('user@example.com')).toBe('label is not letters, digits and inner hyphens');
    expect(reasonOf('example.com/path')).toBe('label is not letters, digits and inner hyphens');
    expect(reasonOf('_tape.example.com')).toBe('label is not letters, digits and inner hyphens');
    expect(reasonOf('my_site.example.com')).toBe('label is not letters, digits and inner hyphens');
    expect(reasonOf('*.example.com')).toBe('label is not letters, digits and inner hyphens');
  });

  it('refuses broken label structure', () => {
    expect(reasonOf('a..b')).toBe('empty label');
    expect(reasonOf('.example.com')).toBe('empty label');
    expect(reasonOf('example.com..')).toBe('empty label');
    expect(reasonOf('-a.example.com')).toBe('label is not letters, digits and inner hyphens');
    expect(reasonOf('a-.example.com')).toBe('label is not letters, digits and inner hyphens');
    expect(reasonOf(`${'a'.repeat(64)}.example`)).toBe('label over 63 characters');
    expect(nameOf(`${'a'.repeat(63)}.example`)).toBe(`${'a'.repeat(63)}.example`);
  });

  it('bounds the total length', () => {
    const label = 'a'.repeat(63);
    const exactly253 = `${label}.${label}.${label}.${'b'.repeat(61)}`;
    expect(exactly253).toHaveLength(253);
    expect(nameOf(exactly253)).toBe(exactly253);
    expect(nameOf(`${exactly253}.`)).toBe(exactly253);
    expect(reasonOf(`${exactly253}b`)).toBe('host name over 253 characters');
    expect(reasonOf('a'.repeat(300))).toBe('host name over 253 characters');
    expect(reasonOf('a'.repeat(301))).toBe('host too long');
    expect(reasonOf('a.'.repeat(5000))).toBe('host too long');
  });

  it('checks the port', () => {
    expect(reasonOf('example.com:')).toBe('invalid port');
    expect(reasonOf('example.com:0')).toBe('invalid port');
    expect(reasonOf('example.com:65536')).toBe('invalid port');
    expect(reasonOf('example.com:123456')).toBe('invalid port');
    expect(reasonOf('example.com:+80')).toBe('invalid port');
    expect(reasonOf('example.com:80a')).toBe('invalid port');
    expect(reasonOf('example.com:80:80')).toBe('IP literals are not site hosts');
    expect(parseHost('example.com:65535')).toEqual({
      kind: 'host',
      name: 'example.com',
      port: 65535,
    });
  });
});

describe('validateName', () => {
  it('normalises configured names the same way as request hosts', () => {
    expect(validateName('Docs.Example.COM.')).toBe('docs.example.com');
    expect(validateName('docs.example.com:443')).toEqual({
      kind: 'invalid',
      reason: 'label is not letters, digits and inner hyphens',
    });
  });
});
