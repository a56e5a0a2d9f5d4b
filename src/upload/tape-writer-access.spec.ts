import { Keypair } from '@solana/web3.js';
import type { TapeRecord } from '../chain/account-layouts';
import { ChainError } from '../chain/chain-error';
import { ChainReader } from '../chain/chain-reader';
import { UploadSigner } from '../cli/deploy/upload-signer';
import { ApiError } from '../http/api-error';
import { TapeWriterAccess } from './tape-writer-access';
import { UPLOAD_HEADERS } from './upload-auth';

const message = (ts: number) => Buffer.from(`hello ${ts}`);

function newTestAccess(
  overrides: { tape?: Partial<TapeRecord> | null; epoch?: number; down?: boolean } = {},
) {
  const authority = Keypair.generate();
  const delegate = Keypair.generate();
  const tapeAddress = Keypair.generate().publicKey.toBase58();
  const tape =
    overrides.tape === null
      ? null
      : ({
          authority: authority.publicKey,
          delegate: delegate.publicKey,
          expiryEpoch: 10,
          ...overrides.tape,
        } as TapeRecord);
  const chain = {
    getTape: async () => {
      if (overrides.down) throw new ChainError('unreachable', 'cannot reach the chain RPC');
      return tape;
    },
    currentEpoch: async () => overrides.epoch ?? 5,
  } as unknown as ChainReader;
  return { sut: new TapeWriterAccess(chain), authority, delegate, tapeAddress };
}

function headersOf(signer: Keypair, now = Date.now()) {
  const h = new UploadSigner(signer).signed(message, now);
  return {
    signer: h[UPLOAD_HEADERS.signer],
    timestamp: h[UPLOAD_HEADERS.timestamp],
    signature: h[UPLOAD_HEADERS.signature],
  };
}

async function statusOf(p: Promise<unknown>): Promise<number> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  return err instanceof ApiError ? err.getStatus() : 0;
}

describe('TapeWriterAccess', () => {
  it("admits the tape's authority and its delegate, naming the signer", async () => {
    const { sut, authority, delegate, tapeAddress } = newTestAccess();
    for (const key of [authority, delegate]) {
      const ok = await sut.authorize(tapeAddress, headersOf(key), message);
      expect(ok.signer.equals(key.publicKey)).toBe(true);
    }
  });

  it('refuses in the uploads order: 400, 404, 401, 403, 410, 503', async () => {
    const stranger = Keypair.generate();
    const t = newTestAccess();
    expect(await statusOf(t.sut.authorize('not-a-key', headersOf(t.authority), message))).toBe(400);
    const none = newTestAccess({ tape: null });
    expect(
      await statusOf(none.sut.authorize(none.tapeAddress, headersOf(none.authority), message)),
    ).toBe(404);
    const stale = headersOf(t.authority, Date.now() - 10 * 60_000);
    expect(await statusOf(t.sut.authorize(t.tapeAddress, stale, message))).toBe(401);
    const forged = { ...headersOf(t.authority), signer: stranger.publicKey.toBase58() };
    expect(await statusOf(t.sut.authorize(t.tapeAddress, forged, message))).toBe(401);
    expect(await statusOf(t.sut.authorize(t.tapeAddress, headersOf(stranger), message))).toBe(403);
    const expired = newTestAccess({ epoch: 10 });
    expect(
      await statusOf(
        expired.sut.authorize(expired.tapeAddress, headersOf(expired.authority), message),
      ),
    ).toBe(410);
    const down = newTestAccess({ down: true });
    expect(
      await statusOf(down.sut.authorize(down.tapeAddress, headersOf(down.authority), message)),
    ).toBe(503);
  });
});
