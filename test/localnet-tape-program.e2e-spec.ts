import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import { TAPE_FIELD_OFFSET } from '../src/chain/account-layouts';
import { TapeErrorCode } from '../src/chain/program-errors';
import { DEFAULT_TAPE_PROGRAM_ID, MIB } from '../src/chain/program-ids';
import { LocalnetClient } from './support/localnet-client';
import { LocalnetProcess, startLocalnetProcess } from './support/localnet-process';
import { TapeFixture, TestTape } from './support/localnet-tapes';

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
      used: 0,
      nameCount: 0,
      trackCount: 0,
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

  it('delegates and undelegates: only the tape keypair may, and the delegate may write', async () => {
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
    const viaDelegate = t.writeTrackIx(payer.publicKey, delegate.publicKey, tape.address, 10);
    await client.send([viaDelegate.ix], [payer, delegate]);
    expect((await t.track(viaDelegate.track))?.size).toBe(10);

    await client.send(
      [t.ix.setDelegate({ authority: tape.keypair.publicKey, delegate: null })],
      [payer, tape.keypair],
    );
    expect((await t.tape(tape.address)).delegate).toBeNull();
    const late = t.writeTrackIx(payer.publicKey, delegate.publicKey, tape.address, 10);
    const error = await client.sendExpectingError([late.ix], [payer, delegate]);
    expect(error.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
  });

  it('writes tracks against capacity, idempotently, and refuses what does not fit', async () => {
    const tape = await t.createTape(payer, 1000, 1);
    const first = t.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 600);
    await client.send([first.ix], [payer, tape.keypair]);
    const again = t.writeTrackIx(
      payer.publicKey,
      tape.keypair.publicKey,
      tape.address,
      600,
      first.commitment,
    );
    await client.send([again.ix], [payer, tape.keypair]);
    expect(await t.tape(tape.address)).toMatchObject({ used: 600, trackCount: 1 });
    expect(await t.track(first.track)).toMatchObject({ size: 600, certified: false, refs: 0 });

    const tooBig = t.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 401);
    const error = await client.sendExpectingError([tooBig.ix], [payer, tape.keypair]);
    expect(error.data?.err).toEqual(custom(TapeErrorCode.InsufficientCapacity));
    expect(error.data?.logs).toContain('Program log: Error: insufficient capacity');
    expect(await t.track(tooBig.track)).toBeNull();

    // A later instruction's failure undoes an earlier one in the same transaction.
    const fits = t.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 400);
    const both = await client.sendExpectingError([fits.ix, tooBig.ix], [payer, tape.keypair]);
    expect(both.data?.err).toEqual(custom(TapeErrorCode.InsufficientCapacity, 1));
    expect(await t.track(fits.track)).toBeNull();
    expect((await t.tape(tape.address)).used).toBe(600);

    const stranger = Keypair.generate();
    const foreign = t.writeTrackIx(payer.publicKey, stranger.publicKey, tape.address, 1);
    const unauthorized = await client.sendExpectingError([foreign.ix], [payer, stranger]);
    expect(unauthorized.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
  });

  it('certifies a track only with the storage authority', async () => {
    const tape = await t.createTape(payer);
    const { ix, track } = t.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 5);
    await client.send([ix], [payer, tape.keypair]);
    const impostor = await client.funded(1);
    const error = await client.sendExpectingError(
      [t.ix.certifyTrack({ storageAuthority: impostor.publicKey, track })],
      [impostor],
    );
    expect(error.data?.err).toEqual(custom(TapeErrorCode.UnauthorizedSigner));
    expect((await t.track(track))?.certified).toBe(false);
    await t.certify(track);
    expect((await t.track(track))?.certified).toBe(true);
  });

  it('sets names on certified tracks only, and re-points them (freeing the old track)', async () => {
    const tape = await t.createTape(payer);
    const { ix, track: draft } = t.writeTrackIx(
      payer.publicKey,
      tape.keypair.publicKey,
      tape.address,
      7,
    );
    await client.send([ix], [payer, tape.keypair]);
    const uncertified = await client.sendExpectingError(
      [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'draft.html', draft)],
      [payer, tape.keypair],
    );
    expect(uncertified.data?.err).toEqual(custom(TapeErrorCode.TrackNotCertified));

    const v1 = await t.certifiedTrack(payer, tape, 100);
    const v2 = await t.certifiedTrack(payer, tape, 300);
    await client.send(
      [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'index.html', v1)],
      [payer, tape.keypair],
    );
    const name = await t.name(tape.address, 'index.html');
    expect(name).toMatchObject({ name: 'index.html', size: 100, contentType: 'text/html' });
    expect(name?.track.toBase58()).toBe(v1.toBase58());
    expect(await t.tape(tape.address)).toMatchObject({ nameCount: 1, used: 7 + 100 + 300 });
    expect((await t.track(v1))?.refs).toBe(1);

    const withoutPrevious = await client.sendExpectingError(
      [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'index.html', v2)],
      [payer, tape.keypair],
    );
    expect(withoutPrevious.data?.err).toEqual(custom(TapeErrorCode.AccountMismatch));
    await client.send(
      [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'index.html', v2, v1)],
      [payer, tape.keypair],
    );
    expect((await t.name(tape.address, 'index.html'))?.size).toBe(300);
    expect(await t.track(v1)).toBeNull();
    expect(await t.tape(tape.address)).toMatchObject({
      nameCount: 1,
      used: 7 + 300,
      trackCount: 2,
    });
  });

  it('removes a name, freeing capacity once no name refers to the track', async () => {
    const tape = await t.createTape(payer);
    const track = await t.certifiedTrack(payer, tape, 500);
    for (const name of ['a.html', 'b.html']) {
      await client.send(
        [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, name, track)],
        [payer, tape.keypair],
      );
    }
    const remove = (name: string) =>
      t.ix.removeName({
        receiver: payer.publicKey,
        signer: tape.keypair.publicKey,
        tape: tape.address,
        name,
        track,
      });
    await client.send([remove('a.html')], [payer, tape.keypair]);
    expect(await t.name(tape.address, 'a.html')).toBeNull();
    expect(await t.tape(tape.address)).toMatchObject({ nameCount: 1, used: 500 });
    expect((await t.track(track))?.refs).toBe(1);
    const lamports = await client.connection.getBalance(payer.publicKey);
    await client.send([remove('b.html')], [payer, tape.keypair]);
    expect(await t.track(track)).toBeNull();
    expect(await t.tape(tape.address)).toMatchObject({ nameCount: 0, used: 0, trackCount: 0 });
    expect(await client.connection.getBalance(payer.publicKey)).toBeGreaterThan(lamports);
    const gone = await client.sendExpectingError([remove('b.html')], [payer, tape.keypair]);
    expect(gone.data?.err).toEqual(custom(TapeErrorCode.AccountNotFound));
  });

  it('releases a track no name uses, and refuses one in use', async () => {
    const tape = await t.createTape(payer);
    const used = await t.certifiedTrack(payer, tape, 50);
    await client.send(
      [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'x', used)],
      [payer, tape.keypair],
    );
    const release = (track: typeof used) =>
      t.ix.releaseTrack({
        receiver: payer.publicKey,
        signer: tape.keypair.publicKey,
        tape: tape.address,
        track,
      });
    const inUse = await client.sendExpectingError([release(used)], [payer, tape.keypair]);
    expect(inUse.data?.err).toEqual(custom(TapeErrorCode.TrackInUse));
    const orphan = t.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 70);
    await client.send([orphan.ix], [payer, tape.keypair]);
    expect((await t.tape(tape.address)).used).toBe(120);
    await client.send([release(orphan.track)], [payer, tape.keypair]);
    expect(await t.track(orphan.track)).toBeNull();
    expect((await t.tape(tape.address)).used).toBe(50);
  });

  it('lists a tape objects with one getProgramAccounts (memcmp on tag and tape)', async () => {
    const tape = await t.createTape(payer);
    const track = await t.certifiedTrack(payer, tape, 10);
    const names = ['one', 'two', 'three/four.css'];
    await client.send(
      names.map((n) =>
        t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, n, track),
      ),
      [payer, tape.keypair],
    );
    const listed = await client.connection.getProgramAccounts(DEFAULT_TAPE_PROGRAM_ID, {
      filters: [
        { memcmp: { offset: 0, bytes: bs58.encode([4]) } },
        { memcmp: { offset: TAPE_FIELD_OFFSET, bytes: tape.address.toBase58() } },
      ],
    });
    expect(listed).toHaveLength(3);
    expect((await t.tape(tape.address)).nameCount).toBe(3);
  });
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

  it('refuses writes, names, extension and resizing once expired; still lets names be removed', async () => {
    const payer = await t.wallet();
    const tape: TestTape = await t.createTape(payer, MIB, 2);
    const track = await t.certifiedTrack(payer, tape, 10);
    await client.send(
      [t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'keep.html', track)],
      [payer, tape.keypair],
    );
    const { expiryEpoch } = await t.tape(tape.address);
    const { genesisTime } = await client.networkConfig();
    const expiresAt = (genesisTime + expiryEpoch) * 1000;
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 1500));

    const { mint, treasury } = await client.networkConfig();
    const attempts = [
      t.writeTrackIx(payer.publicKey, tape.keypair.publicKey, tape.address, 1).ix,
      t.setNameIx(payer.publicKey, tape.keypair.publicKey, tape.address, 'new.html', track),
      t.ix.extendTape({ payer: payer.publicKey, tape: tape.address, mint, treasury, epochs: 1 }),
      t.ix.resizeTape({ payer: payer.publicKey, tape: tape.address, mint, treasury, addBytes: 1 }),
    ];
    for (const ix of attempts) {
      const signers = ix.keys[1].isSigner ? [payer, tape.keypair] : [payer];
      const error = await client.sendExpectingError([ix], signers);
      expect(error.data?.err).toEqual(custom(TapeErrorCode.TapeExpired));
      expect(error.data?.logs).toContain('Program log: Error: tape expired');
    }
    await client.send(
      [
        t.ix.removeName({
          receiver: payer.publicKey,
          signer: tape.keypair.publicKey,
          tape: tape.address,
          name: 'keep.html',
          track,
        }),
      ],
      [payer, tape.keypair],
    );
    expect(await t.name(tape.address, 'keep.html')).toBeNull();
  });
});
