import type { IncomingHttpHeaders } from 'node:http';
import type { ForwardedHeaderName } from '../config/metering.config';
import { ClientIpResolver, UNKNOWN_CLIENT } from './client-ip';
import { TrustedProxies } from './trusted-proxies';

function newResolver(trusted: string[], header: ForwardedHeaderName = 'x-forwarded-for') {
  const sut = new ClientIpResolver(TrustedProxies.parse(trusted), header);
  const keyOf = (peer: string | undefined, headers: IncomingHttpHeaders = {}) =>
    sut.clientKey({ socket: { remoteAddress: peer }, headers });
  return { sut, keyOf };
}

describe('ClientIpResolver', () => {
  describe('with no trusted proxies', () => {
    const { keyOf } = newResolver([]);

    it('uses the socket peer and ignores forwarding headers (no spoofing)', () => {
      expect(keyOf('203.0.113.9')).toBe('203.0.113.9');
      expect(keyOf('203.0.113.9', { 'x-forwarded-for': '1.1.1.1' })).toBe('203.0.113.9');
      expect(keyOf('203.0.113.9', { forwarded: 'for=1.1.1.1' })).toBe('203.0.113.9');
    });

    it('normalises mapped peers, strips zones and keys IPv6 by /64', () => {
      expect(keyOf('::ffff:127.0.0.1')).toBe('127.0.0.1');
      expect(keyOf('::1')).toBe('0:0:0:0::/64');
      expect(keyOf('fe80::1:2:3:4%eth0')).toBe('fe80:0:0:0::/64');
      expect(keyOf('2001:db8:aa:bb:1::2')).toBe('2001:db8:aa:bb::/64');
    });

    it('answers "unknown" when the socket has no address, without throwing', () => {
      expect(keyOf(undefined)).toBe(UNKNOWN_CLIENT);
      const { sut } = newResolver(['127.0.0.1/32']);
      expect(sut.clientKey({ socket: null, headers: {} })).toBe(UNKNOWN_CLIENT);
      expect(sut.clientKey({ headers: { 'x-forwarded-for': '1.1.1.1' } })).toBe(UNKNOWN_CLIENT);
    });
  });

  describe('behind trusted proxies (X-Forwarded-For)', () => {
    const { keyOf } = newResolver(['10.0.0.0/8', '127.0.0.1/32', '2001:db8:ffff::/48']);

    it('takes the first untrusted hop from the right', () => {
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '198.51.100.4' })).toBe('198.51.100.4');
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '198.51.100.4, 10.1.1.1, 10.2.2.2' })).toBe(
        '198.51.100.4',
      );
    });

    it('ignores what the client wrote left of the first untrusted hop', () => {
      const spoofed = { 'x-forwarded-for': '10.9.9.9, 6.6.6.6, 198.51.100.4, 10.1.1.1' };
      expect(keyOf('10.0.0.1', spoofed)).toBe('198.51.100.4');
    });

    it('uses the leftmost hop when every hop is trusted', () => {
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '10.3.3.3,10.2.2.2' })).toBe('10.3.3.3');
    });

    it('keeps the peer when the trusted peer sent no or an empty header', () => {
      expect(keyOf('127.0.0.1')).toBe('127.0.0.1');
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '' })).toBe('127.0.0.1');
    });

    it('trusts a mapped peer by its IPv4 range and reads mapped, bracketed and ported hops', () => {
      expect(keyOf('::ffff:127.0.0.1', { 'x-forwarded-for': '::ffff:198.51.100.4' })).toBe(
        '198.51.100.4',
      );
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '198.51.100.4:5123' })).toBe('198.51.100.4');
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '[2001:db8:1:2::9]:443' })).toBe(
        '2001:db8:1:2::/64',
      );
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '2001:db8:1:2::9, 2001:db8:ffff::1' })).toBe(
        '2001:db8:1:2::/64',
      );
    });

    it('puts two addresses of one IPv6 /64 in one bucket and other /64s apart', () => {
      const a = keyOf('127.0.0.1', { 'x-forwarded-for': '2001:db8:1:2::1' });
      const b = keyOf('127.0.0.1', { 'x-forwarded-for': '2001:db8:1:2:ffff:ffff:ffff:ffff' });
      const c = keyOf('127.0.0.1', { 'x-forwarded-for': '2001:db8:1:3::1' });
      expect(a).toBe(b);
      expect(a).not.toBe(c);
    });

    it('joins repeated header lines', () => {
      const headers = { 'x-forwarded-for': ['198.51.100.4', '10.1.1.1'] as unknown as string };
      expect(keyOf('127.0.0.1', headers)).toBe('198.51.100.4');
    });

    it.each([
      ['garbage', '127.0.0.1'],
      ['198.51.100.4, garbage', '127.0.0.1'],
      ['198.51.100.4, garbage, 10.1.1.1', '10.1.1.1'],
      ['198.51.100.4,,10.1.1.1', '10.1.1.1'],
      ['198.51.100.4, 10.1.1.1,', '127.0.0.1'],
      ['198.51.100.4, unknown', '127.0.0.1'],
      ['198.51.100.4, 10.1.1.1:99999999', '127.0.0.1'],
      ['[2001:db8::1', '127.0.0.1'],
      ['[2001:db8::1]x', '127.0.0.1'],
      ['01.2.3.4', '127.0.0.1'],
      ['198.51.100.4\u0000', '127.0.0.1'],
      ['fe80::1%eth0', '127.0.0.1'],
    ])('stops at a malformed hop in %j and keeps the last good one', (xff, expected) => {
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': xff })).toBe(expected);
    });

    it('walks a huge header only as far as it needs, and caps long trusted chains', () => {
      const junk = `${'6.6.6.6, '.repeat(20000)}198.51.100.4`;
      const started = process.hrtime.bigint();
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': junk })).toBe('198.51.100.4');
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': `1.2.3.4${'x'.repeat(100000)}` })).toBe(
        '127.0.0.1',
      );
      const chain = Array.from({ length: 100 }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join(',');
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': `198.51.100.4,${chain}` })).toBe(
        '10.0.0.68', // 32 hops from the right, then the walk stops
      );
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
    });

    it('ignores the headers of an untrusted peer next to a trusted one', () => {
      expect(keyOf('10.0.0.1', { 'x-forwarded-for': '198.51.100.4' })).toBe('198.51.100.4');
      expect(keyOf('11.0.0.1', { 'x-forwarded-for': '198.51.100.4' })).toBe('11.0.0.1');
    });
  });

  describe('behind trusted proxies (RFC 7239 Forwarded)', () => {
    const { keyOf } = newResolver(['127.0.0.1/32', '::1/128'], 'forwarded');

    it('reads for= with quotes, brackets, ports, other parameters and any case', () => {
      expect(keyOf('127.0.0.1', { forwarded: 'for=198.51.100.4' })).toBe('198.51.100.4');
      expect(keyOf('::1', { forwarded: 'For="[2001:db8:cafe::17]:4711"' })).toBe(
        '2001:db8:cafe:0::/64',
      );
      expect(
        keyOf('127.0.0.1', {
          forwarded: 'for=6.6.6.6, for="198.51.100.4:80";proto=https;by=127.0.0.1, for=127.0.0.1',
        }),
      ).toBe('198.51.100.4');
      expect(keyOf('127.0.0.1', { forwarded: 'proto=http; FOR = "198.51.100.4"' })).toBe(
        '198.51.100.4',
      );
    });

    it('does not read X-Forwarded-For when configured for Forwarded', () => {
      expect(keyOf('127.0.0.1', { 'x-forwarded-for': '198.51.100.4' })).toBe('127.0.0.1');
    });

    it.each([
      'for=unknown',
      'for=_hidden',
      'for="_gazonk"',
      'proto=https',
      'for=198.51.100.4;for=198.51.100.5',
      'for="198.51.100.4',
      'for="198.51.100\\.4"',
      'for="[2001:db8::1]:_port',
      'garbage',
      '=',
    ])('keeps the trusted peer when the last element is %j', (forwarded) => {
      expect(keyOf('127.0.0.1', { forwarded })).toBe('127.0.0.1');
    });

    it('accepts RFC 7239 obfuscated ports', () => {
      expect(keyOf('127.0.0.1', { forwarded: 'for="[2001:db8::1]:_port"' })).toBe(
        '2001:db8:0:0::/64',
      );
    });
  });

  describe('per connection', () => {
    it('reads one socket the same way on every request, and per resolver (its own trusted list)', () => {
      const socket = { remoteAddress: '10.1.2.3' };
      const behind = { 'x-forwarded-for': '198.51.100.7' };
      const open = newResolver([]).sut;
      const proxied = newResolver(['10.0.0.0/8']).sut;
      expect(open.clientKey({ socket, headers: behind })).toBe('10.1.2.3');
      expect(proxied.clientKey({ socket, headers: behind })).toBe('198.51.100.7');
      // Same socket, next request: the proxy's header is still walked, per request.
      expect(proxied.clientKey({ socket, headers: { 'x-forwarded-for': '198.51.100.8' } })).toBe(
        '198.51.100.8',
      );
      expect(open.clientKey({ socket, headers: behind })).toBe('10.1.2.3');
    });

    it('does not remember a socket that had no address yet', () => {
      const socket: { remoteAddress?: string } = {};
      const { sut } = newResolver([]);
      expect(sut.clientKey({ socket, headers: {} })).toBe(UNKNOWN_CLIENT);
      socket.remoteAddress = '192.0.2.1';
      expect(sut.clientKey({ socket, headers: {} })).toBe('192.0.2.1');
    });

    it('works on a frozen socket-like object (nothing stored on it)', () => {
      const socket = Object.freeze({ remoteAddress: '192.0.2.9' });
      const { sut } = newResolver([]);
      expect(sut.clientKey({ socket, headers: {} })).toBe('192.0.2.9');
      expect(sut.clientKey({ socket, headers: {} })).toBe('192.0.2.9');
    });
  });
});
