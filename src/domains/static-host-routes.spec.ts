import { Keypair } from '@solana/web3.js';
import { labelFromAddress } from '../chain/tape-label';
import { StaticHostRoutes } from './static-host-routes';

const tapeA = Keypair.generate().publicKey.toBase58();
const tapeB = Keypair.generate().publicKey.toBase58();

function routes(domains: Record<string, unknown> = {}, subdomain_suffix = 'localhost:8080') {
  return new StaticHostRoutes({ domains: domains as Record<string, string>, subdomain_suffix });
}

describe('StaticHostRoutes', () => {
  it('serves exact operator domains, normalising the configured keys', () => {
    const sut = routes({ 'Docs.Example.COM.': tapeA, 'www.example.com': ` ${tapeB} ` });
    expect(sut.match('docs.example.com')).toEqual({ kind: 'tape', tape: tapeA, via: 'domain' });
    expect(sut.match('www.example.com')).toEqual({ kind: 'tape', tape: tapeB, via: 'domain' });
    expect(sut.match('example.com')).toBeUndefined();
    expect(sut.match('x.docs.example.com')).toBeUndefined();
  });

  it('routes <label>.<suffix> to the tape of the label, ignoring the suffix port', () => {
    const sut = routes();
    const label = labelFromAddress(tapeA);
    expect(sut.match(`${label}.localhost`)).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'subdomain',
    });
    // Memoised decode gives the same answer.
    expect(sut.match(`${label}.localhost`)).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'subdomain',
    });
  });

  it('answers none for hosts under the suffix that are not a label', () => {
    const sut = routes({}, 'sites.example.net');
    const label = labelFromAddress(tapeA);
    expect(sut.match('sites.example.net')).toEqual({ kind: 'none' });
    expect(sut.match('www.sites.example.net')).toEqual({ kind: 'none' });
    expect(sut.match(`${label.slice(1)}.sites.example.net`)).toEqual({ kind: 'none' });
    expect(sut.match(`${label.slice(0, -1)}b.sites.example.net`)).toEqual({ kind: 'none' });
    expect(sut.match(`a.${label}.sites.example.net`)).toEqual({ kind: 'none' });
    expect(sut.match(`${label}.sites.example.net`)).toEqual({
      kind: 'tape',
      tape: tapeA,
      via: 'subdomain',
    });
    // Same ending without the dot boundary is not under the suffix.
    expect(sut.match(`${label}sites.example.net`)).toBeUndefined();
    expect(sut.match(`${label}.localhost`)).toBeUndefined();
  });

  it('prefers an operator domain over a label under the suffix', () => {
    const label = labelFromAddress(tapeA);
    const sut = routes({ [`${label}.localhost`]: tapeB });
    expect(sut.match(`${label}.localhost`)).toEqual({ kind: 'tape', tape: tapeB, via: 'domain' });
  });

  it('turns subdomains off with an empty suffix', () => {
    const sut = routes({}, '');
    expect(sut.match(`${labelFromAddress(tapeA)}.localhost`)).toBeUndefined();
  });

  it('fails fast naming the key of a wrong domain entry', () => {
    expect(() => routes({ 'docs.example.com': 'not-a-tape' })).toThrow(
      'config error: gateway.site.domains["docs.example.com"]: "not-a-tape" is not a tape address',
    );
    expect(() => routes({ 'docs.example.com': 42 })).toThrow(
      'config error: gateway.site.domains["docs.example.com"]: 42 is not a tape address',
    );
    expect(() => routes({ 'docs.example.com:443': tapeA })).toThrow(
      /^config error: gateway\.site\.domains\["docs\.example\.com:443"\]: not a host name/,
    );
    expect(() => routes({ '1.2.3.4': tapeA })).toThrow(
      'config error: gateway.site.domains["1.2.3.4"]: not a host name (IP literals are not site hosts)',
    );
    expect(() => routes({ 'A.example': tapeA, 'a.example.': tapeB })).toThrow(
      'config error: gateway.site.domains["a.example."]: a.example is mapped to two different tapes',
    );
  });

  it('fails fast on a suffix that is not host or host:port', () => {
    expect(() => routes({}, 'http://localhost')).toThrow(
      /^config error: gateway\.site\.subdomain_suffix: "http:\/\/localhost" is not host or host:port/,
    );
    expect(() => routes({}, '127.0.0.1:8080')).toThrow(/subdomain_suffix.*IP literals/);
  });
});
