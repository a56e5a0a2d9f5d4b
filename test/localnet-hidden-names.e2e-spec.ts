import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { TapeErrorCode } from '../src/chain/program-errors';
import { LocalnetClient } from './support/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/localnet-process';
import { TapeFixture, TestTape } from './support/localnet-tapes';

/**
 * The deployed tape program refuses hidden names (a segment starting with "."), whoever builds
 * the transaction: here a raw SetName through @solana/web3.js against the local network process,
 * as an attacker would send it to publish `.env` or answer an ACME http-01 challenge.
 */
jest.setTimeout(120_000);

describe('local network: the tape program refuses hidden names', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;
  let t: TapeFixture;
  let payer: Keypair;
  let tape: TestTape;

  beforeAll(async () => {
    net = await startLocalnetProcess();
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    const authority = net.storageAuthority();
    await client.confirm(
      await client.connection.requestAirdrop(authority.publicKey, LAMPORTS_PER_SOL),
    );
    t = new TapeFixture(client, authority);
    payer = await t.wallet();
    tape = await t.createTape(payer);
  });
  afterAll(async () => {
    if (client) client.close();
    await net?.stop();
  });

  it.each(['.env', '.well-known/acme-challenge/x', 'a/.git/config'])(
    'SetName %s fails with 6011 invalid name and writes nothing',
    async (name) => {
      const track = await t.certifiedTrack(payer, tape);
      const ix = t.rawSetNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, name, track);
      const error = await client.sendExpectingError([ix], [payer, tape.keypair]);
      expect(error.data?.err).toEqual({
        InstructionError: [0, { Custom: TapeErrorCode.InvalidName }],
      });
      expect(error.data?.logs).toContain('Program log: Error: invalid name');
      expect(error.data?.logs).toContain(
        'Program log: Detail: a name segment starts with "." (hidden files and .well-known/ are never published)',
      );
      expect(await t.name(tape.address, name)).toBeNull();
      expect((await t.tape(tape.address)).nameCount).toBe(0);
    },
  );

  it('the control: the same raw SetName publishes a visible name', async () => {
    const track = await t.certifiedTrack(payer, tape);
    const ix = t.rawSetNameIx(
      payer.publicKey,
      tape.keypair.publicKey,
      tape.address,
      'a.b/c.txt',
      track,
    );
    await client.send([ix], [payer, tape.keypair]);
    expect((await t.name(tape.address, 'a.b/c.txt'))?.track.toBase58()).toBe(track.toBase58());
  });
});
