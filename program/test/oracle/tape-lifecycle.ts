import { encodeTape, NO_VERSION, TAPE_SIZE } from '../../../src/chain/account-layouts';
import { TapeErrorCode } from '../../../src/chain/program-errors';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../src/chain/program-ids';
import { resizeCost, storageCost } from '../../../src/chain/storage-pricing';
import { TapeInstructionData, Tag } from '../../../src/chain/tape-instruction-data';
import { createProgramAccount, expectPayerHolds, rentShortfall } from './program-account-lifecycle';
import {
  checkStoragePayment,
  expectPaymentAccounts,
  payStorage,
  StoragePayment,
} from './storage-payment';
import {
  checkedAdd,
  expectActive,
  fail,
  isVacant,
  MAX_STORED_U64,
  TapeInvocation,
} from './tape-invocation';
import { TapeSeeds } from './tape-seeds';

type Data<T extends Tag> = Extract<TapeInstructionData, { tag: T }>;

/** Accounts: payer s w, authority s, tape w, payer ATA w, treasury w, config, system, token. */
export function createTape(call: TapeInvocation, data: Data<Tag.CreateTape>): void {
  const payer = call.wallet(0, 'payer');
  const authority = call.signer(1, 'tape authority');
  const tape = call.writable(2, 'tape');
  const config = call.config(5);
  call.expectAddress(6, SYSTEM_PROGRAM_ID, 'system program');
  call.expectAddress(7, TOKEN_PROGRAM_ID, 'token program');
  const seeds = TapeSeeds.tape(authority.pubkey);
  const bump = call.expectPda(tape, seeds, 'tape');
  const source = call.at(3);
  const treasury = call.at(4);
  expectPaymentAccounts(config, source, treasury);

  if (data.capacity < 1) fail(TapeErrorCode.InvalidArgument, 'capacity must be >= 1 byte');
  if (data.epochs < 1) fail(TapeErrorCode.InvalidArgument, 'epochs must be >= 1');
  const epoch = call.epoch(config);
  const expiryEpoch = checkedAdd(epoch, data.epochs, MAX_STORED_U64, 'expiry epoch');
  if (call.owns(tape)) fail(TapeErrorCode.AlreadyExists, 'tape already exists');
  if (!isVacant(tape)) fail(TapeErrorCode.InvalidAccountData, 'tape address is in use');
  const payment: StoragePayment = {
    payer,
    source,
    treasury,
    amount: storageCost(data.capacity, data.epochs, config.pricePerMibEpoch),
  };
  checkStoragePayment(call, config, payment);
  expectPayerHolds(payer, rentShortfall(call, TAPE_SIZE, tape.lamports), 'tape rent');

  payStorage(call, payment);
  createProgramAccount(call, payer, tape, TAPE_SIZE, seeds, bump);
  tape.data = encodeTape({
    authority: authority.pubkey,
    delegate: null,
    capacity: data.capacity,
    activeEpoch: epoch,
    expiryEpoch,
    createdAt: call.now,
    payer: payer.pubkey,
    ...NO_VERSION,
  });
}

/**
 * Accounts: payer s w, tape w, payer ATA w, treasury w, config, token: the accounts of a paid
 * change of a tape (extend, resize), checked in the program's order.
 */
function paidTapeChange(call: TapeInvocation) {
  const payer = call.wallet(0, 'payer');
  const tape = call.tape(1);
  const config = call.config(4);
  call.expectAddress(5, TOKEN_PROGRAM_ID, 'token program');
  const source = call.at(2);
  const treasury = call.at(3);
  expectPaymentAccounts(config, source, treasury);
  /** Checks the payer can pay `amount` and moves it to the treasury. */
  const pay = (amount: bigint) => {
    const payment: StoragePayment = { payer, source, treasury, amount };
    checkStoragePayment(call, config, payment);
    payStorage(call, payment);
  };
  return { tape, config, pay };
}

/** Accounts as paidTapeChange's. Anyone may pay. */
export function extendTape(call: TapeInvocation, data: Data<Tag.ExtendTape>): void {
  const { tape, config, pay } = paidTapeChange(call);

  if (data.epochs < 1) fail(TapeErrorCode.InvalidArgument, 'epochs must be >= 1');
  const expiryEpoch = checkedAdd(
    tape.record.expiryEpoch,
    data.epochs,
    MAX_STORED_U64,
    'expiry epoch',
  );
  expectActive(tape.record, call.epoch(config));
  pay(storageCost(tape.record.capacity, data.epochs, config.pricePerMibEpoch));
  tape.view.data = encodeTape({ ...tape.record, expiryEpoch });
}

/** Accounts as paidTapeChange's. */
export function resizeTape(call: TapeInvocation, data: Data<Tag.ResizeTape>): void {
  const { tape, config, pay } = paidTapeChange(call);

  if (data.addBytes < 1) fail(TapeErrorCode.InvalidArgument, 'add_bytes must be >= 1');
  const { capacity, expiryEpoch } = tape.record;
  const newCapacity = checkedAdd(capacity, data.addBytes, MAX_STORED_U64, 'capacity');
  const epoch = call.epoch(config);
  expectActive(tape.record, epoch);
  const remainingEpochs = expiryEpoch - epoch;
  pay(resizeCost(capacity, data.addBytes, remainingEpochs, config.pricePerMibEpoch));
  tape.view.data = encodeTape({ ...tape.record, capacity: newCapacity });
}

/** Accounts: authority s, tape w. Only the authority itself may change the delegate. */
export function setDelegate(call: TapeInvocation, data: Data<Tag.SetDelegate>): void {
  const authority = call.signer(0, 'tape authority');
  const tape = call.tape(1);
  if (!authority.pubkey.equals(tape.record.authority)) {
    fail(TapeErrorCode.UnauthorizedSigner, 'only the tape authority may set its delegate');
  }
  tape.view.data = encodeTape({ ...tape.record, delegate: data.delegate });
}
