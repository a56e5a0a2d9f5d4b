import { Keypair, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { DEFAULT_TAPE_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../src/chain/program-ids';
import { decodeTokenAccount } from '../../src/chain/spl-token-layouts';
import { ownLogs } from './program-logs';
import { SvmHost } from './svm-host';
import { tokenAccount } from './token-accounts';

/** The SVM host's own mechanics, on litesvm's real System and SPL Token programs. */
describe('SvmHost', () => {
  const setup = () => {
    const host = new SvmHost({ loadProgram: false });
    const from = Keypair.generate().publicKey;
    const to = Keypair.generate().publicKey;
    host.setAccount(from, { lamports: 10_000_000 });
    host.setAccount(to, { lamports: 1_000_000 });
    return { host, from, to };
  };

  it('refuses to start without program/tape.so, naming the build command', () => {
    expect(() => new SvmHost({ elfPath: '/nonexistent/tape.so' })).toThrow(
      'program/tape.so not built: run npm run build:program',
    );
  });

  it('charges fees to its own payer only and runs the same instruction twice', () => {
    const { host, from, to } = setup();
    const ix = SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1_000 });
    expect(host.execute(ix).error).toBeNull();
    expect(host.execute(ix).error).toBeNull();
    expect(host.getAccount(from)!.lamports).toBe(10_000_000 - 2_000);
    expect(host.getAccount(to)!.lamports).toBe(1_002_000);
    expect(
      host
        .knownAccounts()
        .map((k) => k.toBase58())
        .sort(),
    ).toEqual([from, to].map((k) => k.toBase58()).sort());
  });

  it("maps litesvm's errors to the native host's kinds", () => {
    const { host, from, to } = setup();
    const transfer = (lamports: number, toPubkey = to) =>
      SystemProgram.transfer({ fromPubkey: from, toPubkey, lamports });
    expect(host.execute(transfer(1e12)).error).toEqual({ Custom: 1 });
    const data = Buffer.from([2, 0, 0, 0]);
    expect(host.execute(new TransactionInstruction({ ...transfer(1), data })).error).toBe(
      'InvalidInstructionData',
    );
    const fresh = Keypair.generate().publicKey;
    expect(host.execute(transfer(1, fresh)).error).toBe('InsufficientFundsForRent');
    const noKeys = new TransactionInstruction({
      programId: TOKEN_PROGRAM_ID,
      keys: [],
      data: Buffer.from([3, 1, 0, 0, 0, 0, 0, 0, 0]),
    });
    expect(host.execute(noKeys).error).toBe('NotEnoughAccountKeys');
  });

  it("keeps a program's own log lines, not those of the programs it invokes", () => {
    const { host, from } = setup();
    const mint = Keypair.generate().publicKey;
    const source = Keypair.generate().publicKey;
    const dest = Keypair.generate().publicKey;
    host.setAccount(source, tokenAccount(mint, from, 100n));
    host.setAccount(dest, tokenAccount(mint, Keypair.generate().publicKey, 0n));
    const transfer = new TransactionInstruction({
      programId: TOKEN_PROGRAM_ID,
      keys: [
        { pubkey: source, isSigner: false, isWritable: true },
        { pubkey: dest, isSigner: false, isWritable: true },
        { pubkey: from, isSigner: true, isWritable: false },
      ],
      data: Buffer.from([3, 40, 0, 0, 0, 0, 0, 0, 0]),
    });
    expect(host.execute(transfer)).toEqual({
      error: null,
      logs: [],
      computeUnits: expect.any(Number),
    });
    expect(decodeTokenAccount(host.getAccount(dest)!.data).amount).toBe(40n);
    // litesvm 1.5 ships p-token, which logs nothing but the runtime's frame lines.
    expect(ownLogs(host.lastLogLines, TOKEN_PROGRAM_ID)).toEqual([]);
    expect(host.lastLogLines[0]).toBe(`Program ${TOKEN_PROGRAM_ID.toBase58()} invoke [1]`);

    const tape = DEFAULT_TAPE_PROGRAM_ID.toBase58();
    const token = TOKEN_PROGRAM_ID.toBase58();
    const nested = [
      `Program ${tape} invoke [1]`,
      'Program log: Instruction: CreateTape',
      `Program ${token} invoke [2]`,
      'Program log: Instruction: Transfer',
      `Program ${token} consumed 4645 of 190000 compute units`,
      `Program ${token} success`,
      'Program log: success',
      'Program data: AQID',
      `Program ${tape} consumed 9000 of 200000 compute units`,
      `Program ${tape} failed: custom program error: 0x1777`,
    ];
    expect(ownLogs(nested, DEFAULT_TAPE_PROGRAM_ID)).toEqual([
      'Instruction: CreateTape',
      'success',
      'Program data: AQID',
    ]);
  });

  it('sets the clock and forgets every account on reset', () => {
    const { host, from } = setup();
    host.setUnixTimestamp(1_800_000_123);
    expect(host.unixTimestamp).toBe(1_800_000_123);
    host.reset();
    expect(host.getAccount(from)).toBeUndefined();
    expect(host.knownAccounts()).toEqual([]);
  });
});
