import { AppConfig } from './config/app-config';
import { descriptorLimitWarning, listenerCaps, openFilesLimit } from './descriptor-limit';

const LIMITS = (soft: string, hard = soft) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max cpu time              unlimited            unlimited            seconds   ',
    `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     `,
    'Max locked memory         8388608              8388608              bytes     ',
  ].join('\n');

describe('openFilesLimit', () => {
  it('reads the soft limit of /proc/self/limits', () => {
    expect(openFilesLimit(() => LIMITS('1024', '4096'))).toBe(1024);
    expect(openFilesLimit(() => LIMITS('unlimited'))).toBe(Infinity);
    expect(
      openFilesLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
    // This process: Linux has the file.
    expect(openFilesLimit()).toBeGreaterThan(0);
  });
});

describe('descriptorLimitWarning', () => {
  it('warns under 1024 descriptors when one address may hold more than the gateway can spare', () => {
    const config = new AppConfig();
    config.gateway.max_connections_per_address = 250;
    const warning = descriptorLimitWarning(1024, listenerCaps(config));
    // main, s3, admin (250 each), rpc 128 and pubsub 16 (localnet's own), plus 256 reserved.
    expect(warning).toContain('ulimit -n) is 1024');
    expect(warning).toContain('at least 1150');
    expect(descriptorLimitWarning(1150, listenerCaps(config))).toBeUndefined();
  });

  it('is quiet with the defaults under 1024, and with no local network fewer listeners count', () => {
    const config = new AppConfig();
    expect(listenerCaps(config).map((c) => c.listener)).toEqual([
      'main',
      's3',
      'admin',
      'rpc',
      'pubsub',
    ]);
    expect(descriptorLimitWarning(1024, listenerCaps(config))).toBeUndefined();
    config.chain.rpc_url = 'http://rpc.example';
    config.gateway.admin.port = 0;
    expect(listenerCaps(config).map((c) => c.listener)).toEqual(['main', 's3']);
  });

  it('warns when a cap is off, says nothing when the limit is unknown or unlimited', () => {
    const config = new AppConfig();
    config.gateway.max_connections_per_address = 0;
    expect(descriptorLimitWarning(65536, listenerCaps(config))).toContain(
      'not capped on main, s3, admin',
    );
    expect(descriptorLimitWarning(undefined, listenerCaps(config))).toBeUndefined();
    expect(descriptorLimitWarning(Infinity, listenerCaps(config))).toBeUndefined();
  });
});
