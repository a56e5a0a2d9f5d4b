import { Connection, Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { transactionFeeLamports } from '../../chain/priority-fee';
import { PackOptions, withComputeBudget } from '../../chain/transaction-packer';
import {
  BUFFER_METADATA_SIZE,
  deployWithMaxDataLen,
  PROGRAM_ACCOUNT_SIZE,
  PROGRAMDATA_METADATA_SIZE,
  UPGRADEABLE_LOADER_ID,
} from '../../chain/upgradeable-loader';
import { CliError } from '../cli-error';
import { formatSolApprox } from '../output/units';

export interface DeployFundsCheck {
  rpc: Pick<Connection, 'getMinimumBalanceForRentExemption' | 'getBalance'>;
  programId: PublicKey;
  elfLength: number;
  payer: Keypair;
  authority: Keypair;
  packing: PackOptions;
  /** A first deploy also pays the program and program data accounts' rent. */
  fresh: boolean;
  maxDataLen: number;
  /** Write transactions still to send. */
  writes: number;
}

/**
 * Checked before anything is signed: the payer holds what the deploy needs at its peak — the
 * buffer's rent (returned when the program is deployed from it), the program's accounts' rent
 * on a first deploy, and every transaction's fee, priority fee included.
 */
export async function assertDeployFunds(check: DeployFundsCheck): Promise<void> {
  const { rpc } = check;
  const rent = (bytes: number) => rpc.getMinimumBalanceForRentExemption(bytes);
  const [buffer, program, data, balance] = await Promise.all([
    rent(BUFFER_METADATA_SIZE + check.elfLength),
    rent(PROGRAM_ACCOUNT_SIZE),
    rent(PROGRAMDATA_METADATA_SIZE + check.maxDataLen),
    rpc.getBalance(check.payer.publicKey),
  ]);
  // The writes, the buffer's creation, the deploy and a SetAuthority, each priced as the most
  // expensive of them.
  const fees = (check.writes + 3) * feeAtMost(check);
  const needed = buffer + fees + (check.fresh ? program + data : 0);
  if (balance >= needed) return;
  throw new CliError(
    `insufficient funds: this deploy needs about ${formatSolApprox(needed)} SOL (buffer ${formatSolApprox(buffer)}` +
      (check.fresh
        ? `, program data ${formatSolApprox(data)}, program ${formatSolApprox(program)}`
        : '') +
      `, fees ${formatSolApprox(fees)}); payer ${check.payer.publicKey.toBase58()} has ${formatSolApprox(balance)} SOL`,
  );
}

/** The dearest transaction of a deploy: three signatures and the deploy's compute units. */
function feeAtMost(check: DeployFundsCheck): number {
  const deploy = withComputeBudget(
    [
      SystemProgram.createAccount({
        fromPubkey: check.payer.publicKey,
        newAccountPubkey: check.programId,
        lamports: 0,
        space: PROGRAM_ACCOUNT_SIZE,
        programId: UPGRADEABLE_LOADER_ID,
      }),
      deployWithMaxDataLen({
        payer: check.payer.publicKey,
        programId: check.programId,
        buffer: PublicKey.default,
        authority: check.authority.publicKey,
        maxDataLen: 0,
      }),
    ],
    check.packing,
  );
  return transactionFeeLamports(3, check.packing.computeUnitPrice, deploy.computeUnitLimit);
}
