import { Keypair, LAMPORTS_PER_SOL, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TapeErrorCode } from '../src/chain/program-errors';
import { DEFAULT_TAPE_PROGRAM_ID, MIB } from '../src/chain/program-ids';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/processes/localnet';
import { signersOf, TapeFixture, TestTape } from './support/clients/localnet-tapes';

const PRICE = 1000;
const custom = (code: TapeErrorCode, index = 0) => ({
  InstructionError: [index, { Custom: code }],
});

describe('local network: the tape program through JSON-RPC', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;
  let t: TapeFixture;
  let payer: Keypair;

  beforeAll(async () => {
    net = await startLocalnetProcess({ pricePerMibEpoch: PRICE });
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    const authority = net.storageAuthority();
    await client.confirm(
      await client.connection.requestAirdrop(authority.publicKey, LAMPORTS_PER_SOL),
    );
    t = new TapeFixture(client, authority);
    payer = await t.wallet();
  });
  afterAll(async () => {
    if (client) client.close();
    await net?.stop();
  });

  it('has its Config from genesis: mint, treasury, price, storage authority', async () => {
    const config = await client.networkConfig();
    expect(config.pricePerMibEpoch).toBe(BigInt(PRICE));
    expect(config.epochDurationSecs).toBe(3600);
    expect(config.storageAuthority.toBase58()).toBe(t.storageAuthority.publicKey.toBase58());
    const supply = await client.connection.getTokenSupply(config.mint);
    expect(supply.value.decimals).toBe(6);
    // The committed ELF, deployed under the BPF Upgradeable Loader as on a real cluster.
    const loader = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
    const program = await client.connection.getAccountInfo(DEFAULT_TAPE_PROGRAM_ID);
    expect(program?.executable).toBe(true);
    expect(program?.owner.toBase58()).toBe(loader.toBase58());
    const [programData] = PublicKey.findProgramAddressSync(
      [DEFAULT_TAPE_PROGRAM_ID.toBuffer()],
      loader,
    );
    expect(program?.data.subarray(4, 36).equals(programData.toBuffer())).toBe(true);
    const data = await client.connection.getAccountInfo(programData);
    const elf = readFileSync(join(__dirname, '..', 'program', 'tape.so'));
    expect(data?.data.subarray(45, 45 + elf.length).equals(elf)).toBe(true);
  });

  it('creates a tape: tokens to the treasury, rent from the payer, the record as documented', async () => {
    const { treasury } = await client.networkConfig();
    const treasuryBefore = BigInt(
      (await client.connection.getTokenAccountBalance(treasury)).value.amount,
    );
    const tokensBefore = await client.tokenBalance(payer.publicKey);
    const tape = await t.createTape(payer, 3 * MIB + 1, 5);
    const record = await t.tape(tape.address);
    expect(record).toMatchObject({
      capacity: 3 * MIB + 1,
      version: 0,
      latestVersion: 0,
      sequence: 0,
      keptBytes: 0,
      keep: 10,
      history: [],
      aliases: [],
      delegate: null,
    });
    expect(record.authority.toBase58()).toBe(tape.keypair.publicKey.toBase58());
    expect(record.expiryEpoch - record.activeEpoch).toBe(5);
    const cost = 4n * 5n * BigInt(PRICE);
    expect(await client.tokenBalance(payer.publicKey)).toBe(tokensBefore - cost);
    const treasuryAfter = BigInt(
      (await client.connection.getTokenAccountBalance(treasury)).value.amount,
    );
    expect(treasuryAfter - treasuryBefore).toBe(cost);
  });

  it('refuses a create the payer cannot afford, before anything changes', async () => {
    const poor = await t.wallet(1, 10n);
    const tape = Keypair.generate();
    const lamports = await client.connection.getBalance(poor.publicKey);
    const ix = await t.createIx(poor.publicKey, tape.publicKey, MIB, 1);
    const error = await client.sendExpectingError([ix], [poor, tape]);
    expect(error.code).toBe(-32002);
    expect(error.data?.err).toEqual(custom(TapeErrorCode.InsufficientFunds));
    expect(error.data?.logs).toContain('Program log: Error: insufficient funds');
    expect(await client.connection.getBalance(poor.publicKey)).toBe(lamports);
    expect(await client.tokenBalance(poor.publicKey)).toBe(10n);
    expect(await client.connection.getAccountInfo(t.ix.pdas.tape(tape.publicKey))).toBeNull();

    // Sent anyway (skipPreflight): recorded as failed, only the fee is gone.
    const raw = await client.signed([ix], [poor, tape]);
    const sent = await client.rpc('sendTransaction', [
      raw,
      { encoding: 'base64', skipPreflight: true },
    ]);
    const status = await client.connection.confirmTransaction(
      { signature: sent.result as string, ...(await client.connection.getLatestBlockhash()) },
      'confirmed',
    );
    expect(status.value.err).toEqual(custom(TapeErrorCode.InsufficientFunds));
    expect(await client.connection.getBalance(poor.publicKey)).toBe(lamports - 10_000);
    expect(await client.tokenBalance(poor.publicKey)).toBe(10n);
    expect(await client.connection.getAccountInfo(t.ix.pdas.tape(tape.publicKey))).toBeNull();
  });

  it('refuses a second create of the same tape, zero capacity, and the wrong tape keypair', async () => {
    const tape = await t.createTape(payer, MIB, 1);
    const again = await client.sendExpectingError(
      [await t.createIx(payer.publicKey, tape.keypair.publicKey, MIB, 1)],
      [payer, tape.keypair],
    );
    expect(again.data?.err).toEqual(custom(TapeErrorCode.AlreadyExists));
    const fresh = Keypair.generate();
    const zero = await client.sendExpectingError(
      [await t.createIx(payer.publicKey, fresh.publicKey, 0, 1)],
      [payer, fresh],
    );
    expect(zero.data?.err).toEqual(custom(TapeErrorCode.InvalidArgument));
    // The tape address derives from another key than the one that signs.
    const wrong = Keypair.generate();
    const ix = await t.createIx(payer.publicKey, fresh.publicKey, MIB, 1);
    ix.keys[1].pubkey = wrong.publicKey;
    const mismatch = await client.sendExpectingError([ix], [payer, wrong]);
    expect(mismatch.data?.err).toEqual(custom(TapeErrorCode.AccountMismatch));
  });

  it('extends and resizes a tape, charging the documented cost', async () => {
    const tape = await t.createTape(payer, MIB, 2);
    const { mint, treasury } = await client.networkConfig();
    const before = await t.tape(tape.address);
    let tokens = await client.tokenBalance(payer.publicKey);
    await client.send(
      [t.ix.extendTape({ payer: payer.publicKey, tape: tape.address, mint, treasury, epochs: 3 })],
      [payer],
    );
    expect((await t.tape(tape.address)).expiryEpoch).toBe(before.expiryEpoch + 3);
    expect(await client.tokenBalance(payer.publicKey)).toBe(tokens - 3n * BigInt(PRICE));
    tokens -= 3n * BigInt(PRICE);
    await client.send(
      [
        t.ix.resizeTape({
          payer: payer.publicKey,
          tape: tape.address,
          mint,
          treasury,
          addBytes: MIB + 1,
        }),
      ],
      [payer],
    );
    const after = await t.tape(tape.address);
    expect(after.capacity).toBe(2 * MIB + 1);
    const remaining = BigInt(after.expiryEpoch - after.activeEpoch);
    expect(await client.tokenBalance(payer.publicKey)).toBe(
      tokens - 2n * remaining * BigInt(PRICE),
    );
    const zero = await client.sendExpectingError(
      [t.ix.extendTape({ payer: payer.publicKey, tape: tape.address, mint, treasury, epochs: 0 })],
      [payer],
    );
    expect(zero.data?.err).toEqual(custom(TapeErrorCode.InvalidArgument));
    const broke = await t.wallet(1, 1n);
    const poor = await client.sendExpectingError(
      [
        t.ix.resizeTape({
          payer: broke.publicKey,
          tape: tape.address,
          mint,
          treasury,
          addBytes: MIB,
        }),
      ],
      [broke],
    );
    expect(poor.data?.err).toEqual(custom(TapeErrorCode.InsufficientFunds));
    expect((await t.tape(tape.address)).capacity).toBe(2 * MIB + 1);
  });

  /** Publish of the tape's next version by `signer`, co-signed by the storage authority. */
  const publish = (
    tape: TestTape,
    signer: Keypair,
    expectedSequence: number,
    versionBytes = 100,
    keptBytes = versionBytes,
  ) => ({
    ix: t.publishIx(signer.publicKey, tape.address, expectedSequence, versionBytes, keptBytes),
    signers: signersOf(payer, signer, t.storageAuthority),
  });
  const logsOf = (error: { data?: { logs?: string[] } }) => error.data?.logs ?? [];

  it('delegates and undelegates: only the tape keypair may, and the delegate may publish', async () => {
    const tape = await t.createTape(payer);
    const delegate = Keypair.generate();
    const stranger = Keypair.generate();
    const bySelf = t.ix.setDelegate({
      authority: stranger.publicKey,
      delegate: stranger.publicKey,
    });
    bySelf.keys[1].pubkey = tape.address;
    const refused = await client.sendExpectingError([bySelf], [payer, stranger]);
    expect(refused.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));

    await client.send(
      [t.ix.setDelegate({ authority: tape.keypair.publicKey, delegate: delegate.publicKey })],
      [payer, tape.keypair],
    );
    expect((await t.tape(tape.address)).delegate?.toBase58()).toBe(delegate.publicKey.toBase58());
    const viaDelegate = publish(tape, delegate, 0);
    await client.send([viaDelegate.ix], viaDelegate.signers);
    expect((await t.tape(tape.address)).version).toBe(1);

    await client.send(
      [t.ix.setDelegate({ authority: tape.keypair.publicKey, delegate: null })],
      [payer, tape.keypair],
    );
    expect((await t.tape(tape.address)).delegate).toBeNull();
    const late = publish(tape, delegate, 1);
    const error = await client.sendExpectingError([late.ix], late.signers);
    expect(error.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
    expect((await t.tape(tape.address)).version).toBe(1);
  });

  it('publishes against capacity with compare-and-swap, and refuses what does not fit', async () => {
    const tape = await t.createTape(payer, 1000, 1);
    const first = publish(tape, tape.keypair, 0, 600);
    await client.send([first.ix], first.signers);
    expect(await t.tape(tape.address)).toMatchObject({ version: 1, sequence: 1, keptBytes: 600 });

    // The same expected sequence again: another publisher already moved the tape on.
    const stale = publish(tape, tape.keypair, 0, 600);
    const conflict = await client.sendExpectingError([stale.ix], stale.signers);
    expect(conflict.data?.err).toEqual(custom(TapeErrorCode.VersionConflict));

    // The previous version's 600 bytes stay kept: with 401 new ones, 1001 do not fit 1000.
    const tooBig = publish(tape, tape.keypair, 1, 401, 1001);
    const error = await client.sendExpectingError([tooBig.ix], tooBig.signers);
    expect(error.data?.err).toEqual(custom(TapeErrorCode.InsufficientCapacity));
    expect(
      logsOf(error).some((l) => l.startsWith('Program log: Error: insufficient capacity')),
    ).toBe(true);

    // A later instruction's failure undoes an earlier one in the same transaction.
    const fits = publish(tape, tape.keypair, 1, 400, 1000);
    // Kept after it: 1001 bytes, over 1000.
    const after = t.publishIx(tape.keypair.publicKey, tape.address, 2, 601, 1001);
    const both = await client.sendExpectingError([fits.ix, after], fits.signers);
    expect(both.data?.err).toEqual(custom(TapeErrorCode.InsufficientCapacity, 1));
    expect(await t.tape(tape.address)).toMatchObject({ version: 1, sequence: 1, keptBytes: 600 });

    const stranger = Keypair.generate();
    const foreign = publish(tape, stranger, 1, 1);
    const unauthorized = await client.sendExpectingError([foreign.ix], foreign.signers);
    expect(unauthorized.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
  });

  it('publishes only with the storage authority’s signature (its certification)', async () => {
    const tape = await t.createTape(payer);
    const impostor = await client.funded(1);
    const ix = t.ix.publish({
      signer: tape.keypair.publicKey,
      storageAuthority: impostor.publicKey,
      tape: tape.address,
      expectedSequence: 0,
      root: Buffer.alloc(32, 1),
      versionBytes: 10,
      keptBytes: 10,
    });
    const error = await client.sendExpectingError([ix], [payer, tape.keypair, impostor]);
    expect(error.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
    expect((await t.tape(tape.address)).version).toBe(0);
    const certified = publish(tape, tape.keypair, 0, 10);
    await client.send([certified.ix], certified.signers);
    expect((await t.tape(tape.address)).version).toBe(1);
  });

  it.each([5, 6, 7, 8, 9])(
    'refuses retired per-file instruction tag %i (program 1.2.0) and changes nothing',
    async (tag) => {
      const tape = await t.createTape(payer);
      const shaped = t.publishIx(tape.keypair.publicKey, tape.address, 0);
      const ix = new TransactionInstruction({
        programId: DEFAULT_TAPE_PROGRAM_ID,
        keys: shaped.keys,
        data: Buffer.concat([Buffer.from([tag]), shaped.data.subarray(1)]),
      });
      const before = await client.connection.getAccountInfo(tape.address);
      const error = await client.sendExpectingError(
        [ix],
        signersOf(payer, tape.keypair, t.storageAuthority),
      );
      expect(error.data?.err).toEqual({ InstructionError: [0, 'InvalidInstructionData'] });
      expect(logsOf(error).join('\n')).toContain(`unknown instruction tag ${tag}`);
      const after = await client.connection.getAccountInfo(tape.address);
      expect(after?.data.equals(before!.data)).toBe(true);
    },
  );
});

describe('local network: an expired tape (1-second epochs)', () => {
  let net: LocalnetProcess;
  let client: LocalnetClient;
  let t: TapeFixture;

  beforeAll(async () => {
    net = await startLocalnetProcess({ epochDurationSecs: 1 });
    client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    const authority = net.storageAuthority();
    await client.confirm(
      await client.connection.requestAirdrop(authority.publicKey, LAMPORTS_PER_SOL),
    );
    t = new TapeFixture(client, authority);
  });
  afterAll(async () => {
    if (client) client.close();
    await net?.stop();
  });

  it('refuses Publish, extension and resizing once expired', async () => {
    const payer = await t.wallet();
    const tape: TestTape = await t.createTape(payer, MIB, 2);
    expect(await t.publish(payer, tape, 10)).toBe(1);
    const { expiryEpoch } = await t.tape(tape.address);
    const { genesisTime } = await client.networkConfig();
    const expiresAt = (genesisTime + expiryEpoch) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 1500));

    const { mint, treasury } = await client.networkConfig();
    const attempts = [
      {
        ix: t.publishIx(tape.keypair.publicKey, tape.address, 1, 10),
        signers: signersOf(payer, tape.keypair, t.storageAuthority),
      },
      {
        ix: t.ix.extendTape({
          payer: payer.publicKey,
          tape: tape.address,
          mint,
          treasury,
          epochs: 1,
        }),
        signers: [payer],
      },
      {
        ix: t.ix.resizeTape({
          payer: payer.publicKey,
          tape: tape.address,
          mint,
          treasury,
          addBytes: 1,
        }),
        signers: [payer],
      },
    ];
    for (const { ix, signers } of attempts) {
      const error = await client.sendExpectingError([ix], signers);
      expect(error.data?.err).toEqual(custom(TapeErrorCode.TapeExpired));
      expect(error.data?.logs).toContain('Program log: Error: tape expired');
    }
    expect((await t.tape(tape.address)).version).toBe(1);
  });
});
