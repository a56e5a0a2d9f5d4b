import { Keypair } from '@solana/web3.js';
import { signUpload, UPLOAD_CLOCK_SKEW_MS, UPLOAD_HEADERS, verifyUpload } from './upload-auth';

const claim = {
  tape: Keypair.generate().publicKey.toBase58(),
  track: Keypair.generate().publicKey.toBase58(),
  commitment: 'ab'.repeat(32),
  size: 1234,
};

function headersOf(h: Record<string, string>) {
  return {
    signer: h[UPLOAD_HEADERS.signer],
    timestamp: h[UPLOAD_HEADERS.timestamp],
    signature: h[UPLOAD_HEADERS.signature],
  };
}

describe('upload signatures', () => {
  const signer = Keypair.generate();
  const now = 1_800_000_000_000;

  it('verifies a fresh signature and names the signer', () => {
    const result = verifyUpload(claim, headersOf(signUpload(claim, signer, now)), now + 1000);
    expect(result).toEqual({ ok: true, signer: signer.publicKey });
  });

  it('refuses other bytes, another track, another size, another tape', () => {
    const h = headersOf(signUpload(claim, signer, now));
    for (const changed of [
      { ...claim, commitment: 'cd'.repeat(32) },
      { ...claim, size: 1235 },
      { ...claim, track: Keypair.generate().publicKey.toBase58() },
      { ...claim, tape: Keypair.generate().publicKey.toBase58() },
    ]) {
      expect(verifyUpload(changed, h, now)).toEqual({ ok: false, reason: 'bad-signature' });
    }
  });

  it('refuses stale and future timestamps', () => {
    const h = headersOf(signUpload(claim, signer, now));
    expect(verifyUpload(claim, h, now + UPLOAD_CLOCK_SKEW_MS + 1)).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyUpload(claim, h, now - UPLOAD_CLOCK_SKEW_MS - 1)).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('refuses malformed headers without throwing', () => {
    const h = headersOf(signUpload(claim, signer, now));
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
      const result = verifyUpload(claim, headers, now);
      expect(result.ok).toBe(false);
    }
  });
});
