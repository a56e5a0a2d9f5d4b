import { Keypair, PublicKey } from '@solana/web3.js';
import { SYSTEM_PROGRAM_ID } from '../../chain/program-ids';
import { SystemProgram } from '../programs/system-program';
import { InstructionRuntime } from './instruction-runtime';
import { InstructionFailure, InvokeContext, NativeProgram } from './native-program';
import { ProgramAddressDeriver } from './program-address';
import { NATIVE_LOADER_ID, ProgramRegistry } from './program-registry';
import { AccountHandle, TransactionAccount } from './transaction-account';

class ScriptedProgram implements NativeProgram {
  readonly programId = Keypair.generate().publicKey;
  constructor(private readonly script: (ctx: InvokeContext) => void) {}
  process(ctx: InvokeContext): void {
    this.script(ctx);
  }
}

function account(lamports: number, owner: PublicKey, data = Buffer.alloc(0)): TransactionAccount {
  const key = Keypair.generate().publicKey;
  const stored = { lamports, owner: owner.toBuffer(), executable: false, rentEpoch: 0n, data };
  return new TransactionAccount(key, key.toBuffer(), stored, owner);
}

function newRuntime(...programs: NativeProgram[]) {
  const registry = new ProgramRegistry().register(new SystemProgram(), NATIVE_LOADER_ID);
  for (const p of programs) registry.register(p, NATIVE_LOADER_ID);
  const sut = new InstructionRuntime(registry, new ProgramAddressDeriver(), {
    slot: 1,
    unixTimestamp: 1,
  });
  return { sut };
}

function failureOf(run: () => void): InstructionFailure {
  try {
    run();
  } catch (err) {
    if (err instanceof InstructionFailure) return err;
    throw err;
  }
  throw new Error('expected the instruction to fail');
}

describe('InstructionRuntime: Solana account rules', () => {
  it('lets a program debit its own writable account and credit another', () => {
    const program = new ScriptedProgram((ctx) => {
      ctx.accounts[0].lamports -= 10;
      ctx.accounts[1].lamports += 10;
      ctx.accounts[0].data = Buffer.from([1, 2, 3]);
    });
    const mine = account(100, program.programId);
    const other = account(0, SYSTEM_PROGRAM_ID);
    const { sut } = newRuntime(program);
    sut.execute(
      program.programId,
      [new AccountHandle(mine, false, true), new AccountHandle(other, false, true)],
      Buffer.alloc(0),
    );
    expect([mine.lamports, other.lamports]).toEqual([90, 10]);
    expect(sut.logs.lines).toEqual([
      `Program ${program.programId.toBase58()} invoke [1]`,
      `Program ${program.programId.toBase58()} success`,
    ]);
  });

  it.each([
    [
      'debiting an account it does not own',
      'ExternalAccountLamportSpend',
      (a: AccountHandle[]) => {
        a[1].lamports -= 1;
        a[0].lamports += 1;
      },
    ],
    [
      'changing a read-only account balance',
      'ReadonlyLamportChange',
      (a: AccountHandle[]) => {
        a[2].lamports -= 1;
        a[0].lamports += 1;
      },
    ],
    [
      'writing data of an account it does not own',
      'ExternalAccountDataModified',
      (a: AccountHandle[]) => {
        a[1].data = Buffer.from([9]);
      },
    ],
    [
      'writing data of a read-only account it owns',
      'ReadonlyDataModified',
      (a: AccountHandle[]) => {
        a[2].data = Buffer.from([9]);
      },
    ],
    [
      'creating lamports',
      'UnbalancedInstruction',
      (a: AccountHandle[]) => {
        a[0].lamports += 1;
      },
    ],
    [
      'giving away an account that still holds data',
      'ModifiedProgramId',
      (a: AccountHandle[]) => {
        a[0].data = Buffer.from([1]);
        a[0].owner = SYSTEM_PROGRAM_ID;
      },
    ],
    [
      'taking over an account it does not own',
      'ModifiedProgramId',
      (a: AccountHandle[]) => {
        a[1].owner = Keypair.generate().publicKey;
      },
    ],
  ])('fails a program %s (%s)', (_what, kind, script) => {
    const program = new ScriptedProgram((ctx) => script(ctx.accounts as AccountHandle[]));
    const mine = account(100, program.programId);
    const foreign = account(100, SYSTEM_PROGRAM_ID, Buffer.from([0]));
    const readOnly = account(100, program.programId, Buffer.from([0]));
    const { sut } = newRuntime(program);
    const failure = failureOf(() =>
      sut.execute(
        program.programId,
        [
          new AccountHandle(mine, false, true),
          new AccountHandle(foreign, false, true),
          new AccountHandle(readOnly, false, false),
        ],
        Buffer.alloc(0),
      ),
    );
    expect(failure.kind).toBe(kind);
    expect(sut.logs.lines[sut.logs.lines.length - 1]).toMatch(/ failed: /);
  });

  it('lets a program hand back an emptied account (zeroed data) to another owner', () => {
    const program = new ScriptedProgram((ctx) => {
      ctx.accounts[0].data = Buffer.alloc(4);
      ctx.accounts[0].owner = SYSTEM_PROGRAM_ID;
    });
    const mine = account(100, program.programId, Buffer.from([1, 2, 3, 4]));
    newRuntime(program).sut.execute(
      program.programId,
      [new AccountHandle(mine, false, true)],
      Buffer.alloc(0),
    );
    expect(mine.owner.equals(SYSTEM_PROGRAM_ID)).toBe(true);
  });
});

describe('InstructionRuntime: cross-program invocation', () => {
  const transferData = (lamports: number) => {
    const b = Buffer.alloc(12);
    b.writeUInt32LE(2, 0);
    b.writeBigUInt64LE(BigInt(lamports), 4);
    return b;
  };

  it('passes the caller signer privilege to the System program', () => {
    const program = new ScriptedProgram((ctx) =>
      ctx.invoke(
        SYSTEM_PROGRAM_ID,
        [
          { pubkey: ctx.accounts[0].pubkey, isSigner: true, isWritable: true },
          { pubkey: ctx.accounts[1].pubkey, isSigner: false, isWritable: true },
        ],
        transferData(40),
      ),
    );
    const from = account(100, SYSTEM_PROGRAM_ID);
    const to = account(0, SYSTEM_PROGRAM_ID);
    const { sut } = newRuntime(program);
    sut.execute(
      program.programId,
      [new AccountHandle(from, true, true), new AccountHandle(to, false, true)],
      Buffer.alloc(0),
    );
    expect([from.lamports, to.lamports]).toEqual([60, 40]);
    expect(sut.logs.lines).toEqual([
      `Program ${program.programId.toBase58()} invoke [1]`,
      'Program 11111111111111111111111111111111 invoke [2]',
      'Program 11111111111111111111111111111111 success',
      `Program ${program.programId.toBase58()} success`,
    ]);
  });

  it('refuses signer and writable escalation, and accounts the caller was not given', () => {
    const from = account(100, SYSTEM_PROGRAM_ID);
    const to = account(0, SYSTEM_PROGRAM_ID);
    const cases: Array<[boolean, boolean, PublicKey | null, string]> = [
      [false, true, null, 'PrivilegeEscalation'],
      [true, false, null, 'PrivilegeEscalation'],
      [true, true, Keypair.generate().publicKey, 'MissingAccount'],
    ];
    for (const [signer, writable, stranger, kind] of cases) {
      const program = new ScriptedProgram((ctx) =>
        ctx.invoke(
          SYSTEM_PROGRAM_ID,
          [
            { pubkey: ctx.accounts[0].pubkey, isSigner: true, isWritable: true },
            { pubkey: stranger ?? ctx.accounts[1].pubkey, isSigner: false, isWritable: true },
          ],
          transferData(1),
        ),
      );
      const { sut } = newRuntime(program);
      const failure = failureOf(() =>
        sut.execute(
          program.programId,
          [new AccountHandle(from, signer, writable), new AccountHandle(to, false, true)],
          Buffer.alloc(0),
        ),
      );
      expect(failure.kind).toBe(kind);
    }
    expect(from.lamports).toBe(100);
  });

  it('lets a PDA of the caller sign through invokeSigned, and refuses seeds that do not derive', () => {
    let seeds: Buffer[] = [];
    const program = new ScriptedProgram((ctx) =>
      ctx.invokeSigned(
        SYSTEM_PROGRAM_ID,
        [
          { pubkey: ctx.accounts[0].pubkey, isSigner: true, isWritable: true },
          { pubkey: ctx.accounts[1].pubkey, isSigner: false, isWritable: true },
        ],
        transferData(5),
        [seeds],
      ),
    );
    const [pda, bump] = PublicKey.findProgramAddressSync([Buffer.from('vault')], program.programId);
    seeds = [Buffer.from('vault'), Buffer.from([bump])];
    const vault = new TransactionAccount(
      pda,
      pda.toBuffer(),
      {
        lamports: 50,
        owner: SYSTEM_PROGRAM_ID.toBuffer(),
        executable: false,
        rentEpoch: 0n,
        data: Buffer.alloc(0),
      },
      SYSTEM_PROGRAM_ID,
    );
    const to = account(0, SYSTEM_PROGRAM_ID);
    newRuntime(program).sut.execute(
      program.programId,
      [new AccountHandle(vault, false, true), new AccountHandle(to, false, true)],
      Buffer.alloc(0),
    );
    expect(to.lamports).toBe(5);
    seeds = [Buffer.from('vault'), Buffer.from([(bump + 1) % 256])];
    const failure = failureOf(() =>
      newRuntime(program).sut.execute(
        program.programId,
        [new AccountHandle(vault, false, true), new AccountHandle(to, false, true)],
        Buffer.alloc(0),
      ),
    );
    expect(['InvalidSeeds', 'PrivilegeEscalation']).toContain(failure.kind);
  });

  it('aborts the transaction when a CPI fails, even if the caller catches the error', () => {
    const program = new ScriptedProgram((ctx) => {
      try {
        ctx.invoke(
          SYSTEM_PROGRAM_ID,
          [
            { pubkey: ctx.accounts[0].pubkey, isSigner: true, isWritable: true },
            { pubkey: ctx.accounts[1].pubkey, isSigner: false, isWritable: true },
          ],
          transferData(1_000),
        );
      } catch {
        // a program may not swallow a failed CPI
      }
    });
    const from = account(100, SYSTEM_PROGRAM_ID);
    const to = account(0, SYSTEM_PROGRAM_ID);
    const { sut } = newRuntime(program);
    const failure = failureOf(() =>
      sut.execute(
        program.programId,
        [new AccountHandle(from, true, true), new AccountHandle(to, false, true)],
        Buffer.alloc(0),
      ),
    );
    expect(failure.kind).toEqual({ Custom: 1 });
    expect(
      sut.logs.lines.filter((l) => l.includes('failed: custom program error: 0x1')),
    ).toHaveLength(2);
  });
});
