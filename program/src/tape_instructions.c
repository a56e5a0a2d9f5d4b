#include "bytes.h"
#include "errors.h"
#include "instructions.h"
#include "lifecycle.h"
#include "payment.h"

/* Accounts: payer s w, authority s, tape w, payer ATA w, treasury w, config, system, token. */
uint64_t create_tape(Call *c, const IxData *d) {
  Account *payer, *authority, *tape;
  ConfigRecord config;
  TRY(call_wallet(c, 0, "payer", &payer));
  TRY(call_signer(c, 1, "tape authority", &authority));
  TRY(call_writable(c, 2, "tape", &tape));
  TRY(call_config(c, 5, &config));
  TRY(call_expect_address(c, 6, &SYSTEM_PROGRAM_ID, "system program"));
  TRY(call_expect_address(c, 7, &TOKEN_PROGRAM_ID, "token program"));
  Seeds seeds;
  seeds_init(&seeds);
  seeds_add(&seeds, TAPE_SEED, sizeof(TAPE_SEED) - 1);
  seeds_add(&seeds, authority->key->x, SOL_PUBKEY_BYTES);
  TRY(call_expect_pda(c, tape, &seeds, "tape"));
  StoragePayment payment = {payer, call_at(c, 3), call_at(c, 4), {{0}}};
  TRY(expect_payment_accounts(&config, payment.source, payment.treasury));

  if (d->capacity < 1) return fail3(ERR_INVALID_ARGUMENT, "capacity must be >= 1 byte", NULL, NULL);
  if (d->epochs < 1) return fail3(ERR_INVALID_ARGUMENT, "epochs must be >= 1", NULL, NULL);
  uint64_t epoch = call_epoch(c, &config);
  uint64_t expiry_epoch;
  TRY(checked_add(epoch, d->epochs, MAX_SAFE_INTEGER, "expiry epoch", &expiry_epoch));
  if (call_owns(c, tape)) return fail3(ERR_ALREADY_EXISTS, "tape already exists", NULL, NULL);
  if (!account_is_vacant(tape)) {
    return fail3(ERR_INVALID_ACCOUNT_DATA, "tape address is in use", NULL, NULL);
  }
  storage_cost(d->capacity, d->epochs, config.price_per_mib_epoch, &payment.amount);
  TRY(check_storage_payment(&config, &payment));
  TRY(expect_payer_holds(payer, rent_shortfall(c, TAPE_SIZE, *tape->lamports), "tape rent"));

  TRY(pay_storage(&payment));
  TRY(create_program_account(c, payer, tape, TAPE_SIZE, &seeds));
  /* No version yet: the counters are zero, keep is 10, and the new account's tables are zeros. */
  TapeRecord record = {
      authority->key->x, false, NULL, d->capacity, epoch, expiry_epoch, call_now(c), payer->key->x,
      0,                 0,     0,    0,           DEFAULT_KEEP, 0,     0,
  };
  encode_tape(tape->data, &record);
  return 0;
}

/* A paid change of an existing tape (extend, resize): its accounts, checked in the documented order. */
typedef struct {
  Account *tape;
  TapeRecord record;
  ConfigRecord config;
  StoragePayment payment;
} PaidTapeChange;

/* Accounts: payer s w, tape w, payer ATA w, treasury w, config, token. Anyone may pay. */
static uint64_t load_paid_tape_change(Call *c, PaidTapeChange *out) {
  Account *payer;
  TRY(call_wallet(c, 0, "payer", &payer));
  TRY(call_tape(c, 1, &out->tape, &out->record));
  TRY(call_config(c, 4, &out->config));
  TRY(call_expect_address(c, 5, &TOKEN_PROGRAM_ID, "token program"));
  out->payment.payer = payer;
  out->payment.source = call_at(c, 2);
  out->payment.treasury = call_at(c, 3);
  return expect_payment_accounts(&out->config, out->payment.source, out->payment.treasury);
}

/* Checks the payment, pays, and writes the changed tape. */
static uint64_t pay_and_write(PaidTapeChange *change) {
  TRY(check_storage_payment(&change->config, &change->payment));
  TRY(pay_storage(&change->payment));
  encode_tape(change->tape->data, &change->record);
  return 0;
}

uint64_t extend_tape(Call *c, const IxData *d) {
  PaidTapeChange change;
  TRY(load_paid_tape_change(c, &change));

  if (d->epochs < 1) return fail3(ERR_INVALID_ARGUMENT, "epochs must be >= 1", NULL, NULL);
  uint64_t expiry_epoch;
  TRY(checked_add(change.record.expiry_epoch, d->epochs, MAX_SAFE_INTEGER, "expiry epoch",
                  &expiry_epoch));
  TRY(expect_active(&change.record, call_epoch(c, &change.config)));
  storage_cost(change.record.capacity, d->epochs, change.config.price_per_mib_epoch,
               &change.payment.amount);
  change.record.expiry_epoch = expiry_epoch;
  return pay_and_write(&change);
}

uint64_t resize_tape(Call *c, const IxData *d) {
  PaidTapeChange change;
  TRY(load_paid_tape_change(c, &change));

  if (d->add_bytes < 1) return fail3(ERR_INVALID_ARGUMENT, "add_bytes must be >= 1", NULL, NULL);
  uint64_t capacity;
  TRY(checked_add(change.record.capacity, d->add_bytes, MAX_SAFE_INTEGER, "capacity", &capacity));
  uint64_t epoch = call_epoch(c, &change.config);
  TRY(expect_active(&change.record, epoch));
  resize_cost(change.record.capacity, d->add_bytes, change.record.expiry_epoch - epoch,
              change.config.price_per_mib_epoch, &change.payment.amount);
  change.record.capacity = capacity;
  return pay_and_write(&change);
}

/* Accounts: authority s, tape w. Only the authority itself may change the delegate. */
uint64_t set_delegate(Call *c, const IxData *d) {
  Account *authority, *tape;
  TapeRecord record;
  TRY(call_signer(c, 0, "tape authority", &authority));
  TRY(call_tape(c, 1, &tape, &record));
  if (!key_equal(authority->key, record.authority)) {
    return fail3(ERR_UNAUTHORIZED_SIGNER, "only the tape authority may set its delegate", NULL, NULL);
  }
  /* The new delegate comes from the instruction data, never from the bytes being rewritten. */
  record.has_delegate = d->has_delegate;
  record.delegate = d->delegate;
  encode_tape(tape->data, &record);
  return 0;
}
