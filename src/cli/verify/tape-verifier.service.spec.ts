import { Keypair } from '@solana/web3.js';
import { objectAddress } from '../../verify/core/tape-verifier';
import { TapeVerifierService } from './tape-verifier.service';
import { HttpAnswer, VerifyHttp } from './verify-http';
import { parseVerifyTarget } from './verify-target';

/** A gateway that answers from a script, counting the requests per URL. */
class ScriptedHttp extends VerifyHttp {
  readonly asked = new Map<string, number>();
  constructor(private readonly answer: (url: string, n: number) => HttpAnswer) {
    super();
  }
  async get(url: string): Promise<HttpAnswer> {
    const n = (this.asked.get(url) ?? 0) + 1;
    this.asked.set(url, n);
    return this.answer(url, n);
  }
  async postJson(): Promise<unknown> {
    return { result: { context: { slot: 1 }, value: null } };
  }
}

const answer = (status: number, headers: Record<string, string> = {}, body = ''): HttpAnswer => ({
  status,
  headers,
  body: new Uint8Array(Buffer.from(body)),
});

describe('TapeVerifierService', () => {
  const tape = Keypair.generate().publicKey.toBase58();
  const track = objectAddress(tape, 'cd'.repeat(32))!;
  const target = parseVerifyTarget(`http://gw.test/object/${track}`, { gateway: 'http://gw.test' });

  it('waits out a busy gateway (429 with Retry-After), then checks the answer it gets', async () => {
    const http = new ScriptedHttp((url, n) => {
      if (url.includes('/proof/')) return answer(500);
      return n <= 2 ? answer(429, { 'retry-after': '0' }) : answer(200, {}, 'bytes');
    });
    const report = await new TapeVerifierService(http).verifyOne(target, 'http://rpc.test');
    expect(http.asked.get(`http://gw.test/object/${track}`)).toBeGreaterThanOrEqual(3);
    expect(report).toMatchObject({ ok: false, failure: { reason: 'no_proof' } });
  });

  it('refuses an answer whose proof is not a tape-proof-v1 document', async () => {
    const http = new ScriptedHttp((url) =>
      url.includes('/proof/')
        ? answer(200, {}, JSON.stringify({ format: 'tape-proof-v1' }))
        : answer(200, {}, 'bytes'),
    );
    const report = await new TapeVerifierService(http).verifyOne(target, 'http://rpc.test');
    expect(report).toMatchObject({ ok: false, failure: { reason: 'malformed_proof' } });
  });
});
