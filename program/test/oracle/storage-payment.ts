import { NetworkConfig } from '../../../src/chain/account-layouts';
import { LayoutError } from '../../../src/chain/byte-codec';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';
import { decodeTokenAccount, TokenAccountRecord } from '../../../src/chain/spl-token-layouts';
import { AccountView } from './native-program';
import { fail, isVacant, TapeInvocation } from './tape-invocation';
import { TapeSeeds } from './tape-seeds';

const TOKEN_TRANSFER = 3;
const TOKEN_ACCOUNT_INITIALIZED = 1;

/** The accounts of a storage-token payment: payer (signs), its ATA, the treasury. */
export interface StoragePayment {
  payer: AccountView;
  source: AccountView;
  treasury: AccountView;
  amount: bigint;
}

/** The payment's accounts, checked with the other accounts: writable, the network's treasury. */
export function expectPaymentAccounts(
  config: NetworkConfig,
  source: AccountView,
  treasury: AccountView,
): void {
  if (!source.isWritable)
    fail(TapeErrorCode.AccountMismatch, 'payer token account must be writable');
  if (!treasury.isWritable) fail(TapeErrorCode.AccountMismatch, 'treasury must be writable');
  if (!treasury.pubkey.equals(config.treasury)) {
    fail(TapeErrorCode.AccountMismatch, 'treasury is not the network treasury');
  }
}

/**
 * Checks, before any effect, that the payment can go through: the source is the payer's ATA of
 * the storage mint and holds `amount`. A zero amount moves nothing, so it needs no token
 * account (a resize within an already paid MiB, a free network).
 */
export function checkStoragePayment(
  call: TapeInvocation,
  config: NetworkConfig,
  payment: StoragePayment,
): void {
  const { payer, source, amount } = payment;
  const ataSeeds = TapeSeeds.associatedToken(payer.pubkey, config.mint);
  // An existing account at a hash of these seeds can only be the ATA program's PDA (nobody holds
  // a private key for a hash), so a match on an existing account is safe to remember.
  if (call.ataAddresses.bumpOf(ataSeeds, source.pubkey, !isVacant(source)) === null) {
    fail(TapeErrorCode.InsufficientFunds, "source is not the payer's storage-token account");
  }
  if (amount === 0n) return;
  const account = readTokenAccount(source);
  if (
    !account ||
    !account.mint.equals(config.mint) ||
    !account.owner.equals(payer.pubkey) ||
    account.state !== TOKEN_ACCOUNT_INITIALIZED
  ) {
    fail(TapeErrorCode.InsufficientFunds, 'payer has no usable storage-token account');
  }
  if (account.amount < amount) {
    fail(
      TapeErrorCode.InsufficientFunds,
      `payer holds ${account.amount} storage-token units, needs ${amount}`,
    );
  }
}

/** Moves the tokens: SPL Token `Transfer` from the payer's ATA to the treasury, signed by the payer. */
export function payStorage(call: TapeInvocation, payment: StoragePayment): void {
  if (payment.amount === 0n) return;
  const data = Buffer.alloc(9);
  data.writeUInt8(TOKEN_TRANSFER, 0);
  data.writeBigUInt64LE(payment.amount, 1);
  call.ctx.invoke(
    TOKEN_PROGRAM_ID,
    [
      { pubkey: payment.source.pubkey, isSigner: false, isWritable: true },
      { pubkey: payment.treasury.pubkey, isSigner: false, isWritable: true },
      { pubkey: payment.payer.pubkey, isSigner: true, isWritable: false },
    ],
    data,
  );
}

function readTokenAccount(view: AccountView): TokenAccountRecord | null {
  if (!view.owner.equals(TOKEN_PROGRAM_ID)) return null;
  try {
    return decodeTokenAccount(view.data);
  } catch (e) {
    if (e instanceof LayoutError) return null;
    throw e;
  }
}
