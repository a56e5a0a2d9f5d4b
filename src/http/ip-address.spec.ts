import { clientKeyOf, parseIp } from './ip-address';

function key(text: string): string | undefined {
  const ip = parseIp(text);
  return ip ? clientKeyOf(ip) : undefined;
}

describe('parseIp / clientKeyOf', () => {
  it('keeps IPv4 addresses as they are', () => {
    expect(key('203.0.113.7')).toBe('203.0.113.7');
    expect(key('0.0.0.0')).toBe('0.0.0.0');
    expect(key('255.255.255.255')).toBe('255.255.255.255');
  });

  it('turns IPv4-mapped IPv6, dotted or hex, into the IPv4 address', () => {
    expect(key('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(key('::FFFF:7f00:1')).toBe('127.0.0.1');
    expect(key('0:0:0:0:0:ffff:c000:0280')).toBe('192.0.2.128');
  });

  it('keys IPv6 clients by their /64, whatever the spelling', () => {
    expect(key('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(key('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(key('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(key('::1')).toBe('0:0:0:0::/64');
    expect(key('::')).toBe('0:0:0:0::/64');
    expect(key('fe80::1:2.3.4.5')).toBe('fe80:0:0:0::/64');
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.256',
    '01.2.3.4',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1..3.4',
    '1.2.3.-4',
    '0x7f.0.0.1',
    'localhost',
    'unknown',
    ':::',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '12345::1',
    'g::1',
    ':1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:',
    '1::2:3:4:5:6:7:8',
    '::ffff:1.2.3.4.5',
    '1.2.3.4::',
    'fe80::1%eth0',
    '[::1]',
    '1'.repeat(46),
    `${'1:'.repeat(30)}1`,
  ])('rejects %j', (text) => {
    expect(parseIp(text)).toBeUndefined();
  });
});
