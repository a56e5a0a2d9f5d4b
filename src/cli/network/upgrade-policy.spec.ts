import { Keypair } from '@solana/web3.js';
import { parseProgramVersion } from '../../chain/program-version';
import { CliError } from '../cli-error';
import { downgradeRefusal, upgradeAuthoritySource } from './upgrade-policy';

const id = Keypair.generate().publicKey;
const v = (text: string) => parseProgramVersion(text);

describe('downgradeRefusal', () => {
  it('lets a newer build replace an older one, or a versioned build an unversioned one', () => {
    expect(downgradeRefusal(id, v('1.0.0'), v('1.0.1'))).toBeNull();
    expect(downgradeRefusal(id, v('1.9.9'), v('2.0.0'))).toBeNull();
    expect(downgradeRefusal(id, null, v('0.0.1'))).toBeNull();
  });

  it('refuses an older build, the same version, and unversioned builds, in one line', () => {
    expect(downgradeRefusal(id, v('1.2.0'), v('1.1.9'))).toBe(
      `program ${id.toBase58()} runs version 1.2.0 and this build is version 1.1.9, not newer: refusing to replace it (pass --allow-downgrade to do it anyway)`,
    );
    expect(downgradeRefusal(id, v('1.2.0'), v('1.2.0'))).toMatch(
      /runs version 1\.2\.0 and this build is version 1\.2\.0, the same version with other bytes: refusing/,
    );
    expect(downgradeRefusal(id, v('1.0.0'), null)).toMatch(
      /runs version 1\.0\.0 and this build is an unversioned build, not newer/,
    );
    expect(downgradeRefusal(id, null, null)).toMatch(
      /runs an unversioned build and this build is an unversioned build, not newer/,
    );
  });
});

describe('upgradeAuthoritySource', () => {
  const devnet = { local: false as const, reason: 'api.devnet.solana.com is a public cluster' };

  it('defaults to the wallet only on the local network', () => {
    expect(upgradeAuthoritySource({ local: true }, 'http://127.0.0.1:8899', undefined)).toBe(
      'wallet',
    );
    expect(upgradeAuthoritySource({ local: true }, 'http://127.0.0.1:8899', 'cold.json')).toEqual({
      keypairFile: 'cold.json',
    });
  });

  it('requires --upgrade-authority on any other cluster', () => {
    const url = 'https://api.devnet.solana.com';
    expect(() => upgradeAuthoritySource(devnet, url, undefined)).toThrow(CliError);
    expect(() => upgradeAuthoritySource(devnet, url, undefined)).toThrow(
      `${url} is not the local network (api.devnet.solana.com is a public cluster): name the upgrade authority with --upgrade-authority <keypair> (a cold key, not the wallet; docs/operator.md)`,
    );
    expect(upgradeAuthoritySource(devnet, url, '/keys/upgrade.json')).toEqual({
      keypairFile: '/keys/upgrade.json',
    });
  });
});
