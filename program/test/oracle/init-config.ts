import { PublicKey } from '@solana/web3.js';
import { CONFIG_SIZE, encodeConfig } from '../../../src/chain/account-layouts';
import { LayoutError } from '../../../src/chain/byte-codec';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';
import { decodeMint, decodeTokenAccount } from '../../../src/chain/spl-token-layouts';
import { TapeInstructionData, Tag } from '../../../src/chain/tape-instruction-data';
import { AccountView } from './native-program';
import { createProgramAccount, expectPayerHolds, rentShortfall } from './program-account-lifecycle';
import { fail, isVacant, TapeInvocation } from './tape-invocation';
import { TapeSeeds } from './tape-seeds';

type InitConfigData = Extract<TapeInstructionData, { tag: Tag.InitConfig }>;

/** Accounts: admin s w, config w, mint, treasury, system. */
export function initConfig(call: TapeInvocation, data: InitConfigData): void {
  const admin = call.wallet(0, 'admin');
  const config = call.writable(1, 'config');
  const mint = call.at(2);
  const treasury = call.at(3);
  call.expectAddress(4, SYSTEM_PROGRAM_ID, 'system program');
  const bump = call.expectPda(config, TapeSeeds.config(), 'config');
  expectMint(mint);
  expectTokenAccountOf(treasury, mint.pubkey);

  if (data.epochDurationSecs < 1) {
    fail(TapeErrorCode.InvalidArgument, 'epoch duration must be >= 1 s');
  }
  if (call.owns(config)) fail(TapeErrorCode.AlreadyExists, 'config already initialized');
  if (!isVacant(config)) fail(TapeErrorCode.InvalidAccountData, 'config address is in use');
  expectPayerHolds(admin, rentShortfall(call, CONFIG_SIZE, config.lamports), 'config rent');

  createProgramAccount(call, admin, config, CONFIG_SIZE, TapeSeeds.config(), bump);
  config.data = encodeConfig({
    epochDurationSecs: data.epochDurationSecs,
    genesisTime: data.genesisTime,
    pricePerMibEpoch: data.pricePerMibEpoch,
    mint: mint.pubkey,
    treasury: treasury.pubkey,
    storageAuthority: data.storageAuthority,
    admin: admin.pubkey,
  });
}

function expectMint(view: AccountView): void {
  const ok =
    view.owner.equals(TOKEN_PROGRAM_ID) && decodes(() => decodeMint(view.data).isInitialized);
  if (!ok) fail(TapeErrorCode.InvalidAccountData, 'mint is not an initialized SPL mint');
}

function expectTokenAccountOf(view: AccountView, mint: PublicKey): void {
  const ok =
    view.owner.equals(TOKEN_PROGRAM_ID) &&
    decodes(() => {
      const account = decodeTokenAccount(view.data);
      return account.mint.equals(mint) && account.state === 1;
    });
  if (!ok) fail(TapeErrorCode.InvalidAccountData, 'treasury is not a token account of the mint');
}

function decodes(check: () => boolean): boolean {
  try {
    return check();
  } catch (e) {
    if (e instanceof LayoutError) return false;
    throw e;
  }
}
