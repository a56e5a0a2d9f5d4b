import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../../chain/tape-label';
import { objectAddress } from '../../verify/core/tape-verifier';
import { CliError } from '../cli-error';
import { parseVerifyTarget } from './verify-target';

describe('parseVerifyTarget', () => {
  const tape = Keypair.generate().publicKey.toBase58();
  const fallback = { gateway: 'http://127.0.0.1:8080/' };

  it('a path route: the site under /site/{tape}, proofs from the same gateway', () => {
    expect(parseVerifyTarget(`http://gw.test:8080/site/${tape}/docs/`, fallback)).toEqual({
      kind: 'site',
      tape,
      siteBase: `http://gw.test:8080/site/${tape}`,
      path: '/docs/',
      gateway: 'http://gw.test:8080',
    });
    expect(parseVerifyTarget(`http://gw.test/site/${tape}`, fallback)).toMatchObject({ path: '/' });
  });

  it('a hostname URL: the tape from its label, proofs from the parent host or --gateway', () => {
    const label = labelFromAddress(tape);
    expect(parseVerifyTarget(`https://${label}.sites.test:8443/a%20b.html`, fallback)).toEqual({
      kind: 'site',
      tape,
      siteBase: `https://${label}.sites.test:8443`,
      path: '/a%20b.html',
      gateway: 'https://sites.test:8443',
    });
    expect(
      parseVerifyTarget(`https://${label}.sites.test/`, {
        ...fallback,
        gatewayOption: 'https://gw.test/',
      }),
    ).toMatchObject({ gateway: 'https://gw.test' });
  });

  it('pinned and alias URLs: the selector from the path or the host', () => {
    expect(parseVerifyTarget(`http://gw.test/site/${tape}@3/a/`, fallback)).toEqual({
      kind: 'site',
      tape,
      siteBase: `http://gw.test/site/${tape}@3`,
      path: '/a/',
      gateway: 'http://gw.test',
      selector: { kind: 'pinned', version: 3 },
    });
    expect(parseVerifyTarget(`http://gw.test/site/${tape}@pr-12`, fallback)).toMatchObject({
      path: '/',
      selector: { kind: 'alias', name: 'pr-12' },
    });
    const label = labelFromAddress(tape);
    expect(parseVerifyTarget(`https://v7--${label}.sites.test/x`, fallback)).toEqual({
      kind: 'site',
      tape,
      siteBase: `https://v7--${label}.sites.test`,
      path: '/x',
      gateway: 'https://sites.test',
      selector: { kind: 'pinned', version: 7 },
    });
    expect(parseVerifyTarget(`https://pr-1--${label}.sites.test/`, fallback)).toMatchObject({
      tape,
      selector: { kind: 'alias', name: 'pr-1' },
    });
    expect(() => parseVerifyTarget(`http://gw.test/site/${tape}@Bad_/`, fallback)).toThrow(
      /version selector/,
    );
  });

  it('an object URL: the tape and commitment from the address', () => {
    const commitment = 'ab'.repeat(32);
    const track = objectAddress(tape, commitment)!;
    expect(parseVerifyTarget(`http://gw.test/object/${track}`, fallback)).toEqual({
      kind: 'object',
      tape,
      commitment,
      track,
      url: `http://gw.test/object/${track}`,
      gateway: 'http://gw.test',
    });
  });

  it('a site path of the active tape, through the configured gateway', () => {
    expect(parseVerifyTarget('/docs/', { ...fallback, tape: () => tape })).toEqual({
      kind: 'site',
      tape,
      siteBase: `http://127.0.0.1:8080/site/${tape}`,
      path: '/docs/',
      gateway: 'http://127.0.0.1:8080',
    });
  });

  it('refuses what it cannot verify, with one clear line', () => {
    expect(() => parseVerifyTarget('/docs/', fallback)).toThrow(CliError);
    expect(() => parseVerifyTarget('ftp://x/site/a', fallback)).toThrow(/only http and https/);
    expect(() => parseVerifyTarget('not a url', fallback)).toThrow(/is not a URL/);
    expect(() => parseVerifyTarget('http://gw.test/object/abc', fallback)).toThrow(
      /not an object address/,
    );
    expect(() => parseVerifyTarget('http://example.com/page', fallback)).toThrow(/custom domain/);
  });
});
