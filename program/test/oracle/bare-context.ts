import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../../src/chain/program-ids';
import { AccountView, CpiAccount, InvokeContext } from './native-program';
import { rentExempt } from './test-ledger';
import { NativeHost } from '../native-host';

/**
 * A context with no runtime bookkeeping, to time the program alone: accounts as the ledger
 * holds them (each instruction on its own copy), System CreateAccount applied directly.
 */
export function bareContext(host: NativeHost, ix: TransactionInstruction): InvokeContext {
  const accounts: AccountView[] = ix.keys.map((k) => {
    const stored = host.ledger.get(k.pubkey);
    return {
      pubkey: k.pubkey,
      isSigner: k.isSigner,
      isWritable: k.isWritable,
      executable: false,
      lamports: stored?.lamports ?? 0,
      owner: stored?.owner ?? PublicKey.default,
      data: Buffer.from(stored?.data ?? Buffer.alloc(0)),
    };
  });
  const createAccount = (_: PublicKey, metas: CpiAccount[], data: Buffer): void => {
    const [from, to] = metas.map((m) => accounts.find((a) => a.pubkey.equals(m.pubkey))!);
    const lamports = Number(data.readBigUInt64LE(4));
    from.lamports -= lamports;
    to.lamports += lamports;
    to.data = Buffer.alloc(Number(data.readBigUInt64LE(12)));
    to.owner = new PublicKey(data.subarray(20, 52));
  };
  return {
    programId: DEFAULT_TAPE_PROGRAM_ID,
    accounts,
    data: ix.data,
    clock: { ...host.ledger.clock },
    minimumBalance: rentExempt,
    log: () => undefined,
    invoke: createAccount,
    invokeSigned: createAccount,
  };
}
