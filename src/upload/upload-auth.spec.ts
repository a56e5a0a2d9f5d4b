import { Keypair } from '@solana/web3.js';
import { UploadSigner } from '../cli/deploy/upload-signer';
import { UPLOAD_CLOCK_SKEW_MS, UPLOAD_HEADERS, verifySigned } from './upload-auth';
import { versionUploadMessage } from './version-request-auth';

const claim = {
  tape: Keypair.generate().publicKey.toBase58(),
  commitment: 'ab'.repeat(32),
  size: 1234,
};
const messageOf = (c: typeof claim) => (timestamp: number) =>
  versionUploadMessage({ ...c, timestamp });

function headersOf(h: Record<string, string>) {
  return {
    signer: h[UPLOAD_HEADERS.signer],
    timestamp: h[UPLOAD_HEADERS.timestamp],
    signature: h[UPLOAD_HEADERS.signature],
  };
}

describe('signed writer requests', () => {
  const signer = Keypair.generate();
  const now = 1_800_000_000_000;
  const signed = () => headersOf(new UploadSigner(signer).signed(messageOf(claim), now));

  it('verifies a fresh signature and names the signer', () => {
    const result = verifySigned(signed(), messageOf(claim), now + 1000);
    expect(result).toEqual({ ok: true, signer: signer.publicKey });
  });

  it('refuses other bytes, another size, another tape', () => {
    const h = signed();
    for (const changed of [
      { ...claim, commitment: 'cd'.repeat(32) },
      { ...claim, size: 1235 },
      { ...claim, tape: Keypair.generate().publicKey.toBase58() },
    ]) {
      expect(verifySigned(h, messageOf(changed), now)).toEqual({
        ok: false,
        reason: 'bad-signature',
      });
    }
  });

  it('refuses stale and future timestamps', () => {
    const h = signed();
    expect(verifySigned(h, messageOf(claim), now + UPLOAD_CLOCK_SKEW_MS + 1)).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySigned(h, messageOf(claim), now - UPLOAD_CLOCK_SKEW_MS - 1)).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('refuses malformed headers without throwing', () => {
    const h = signed();
    const bad = [
      {},
      { ...h, signer: 'not-a-key' },
      { ...h, signature: '0OIl' },
      { ...h, signature: 'abc' },
      { ...h, timestamp: '12e3' },
      { ...h, timestamp: '9'.repeat(40) },
      { ...h, signer: Keypair.generate().publicKey.toBase58() },
    ];
    for (const headers of bad) {
      expect(verifySigned(headers, messageOf(claim), now).ok).toBe(false);
    }
  });
});
