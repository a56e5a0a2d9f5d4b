#include "errors.h"
#include "history.h"
#include "instructions.h"

/* Accounts: signer s, tape w: the tape, with its signer (authority or delegate) checked. */
static uint64_t load_signed_tape(Call *c, Account **tape, TapeRecord *record) {
  Account *signer;
  TRY(call_signer(c, 0, "signer", &signer));
  TRY(call_tape(c, 1, tape, record));
  return expect_tape_signer(record, signer);
}

/* Evicts what the change left outside the kept set and writes the record. */
static uint64_t write_changed(Account *tape, TapeRecord *record, uint64_t sequence) {
  record->sequence = sequence;
  history_evict(tape->data, record);
  encode_tape(tape->data, record);
  return 0;
}

/*
 * Accounts: signer s, tape w, config (for the epoch: an expired tape is not rolled back).
 * Makes a kept version current (rollback, promote). No storage authority: the version was
 * certified when it was published, and kept_bytes stays (the kept set does not grow).
 */
uint64_t set_current(Call *c, const IxData *d) {
  Account *signer, *tape;
  TapeRecord record;
  ConfigRecord config;
  TRY(call_signer(c, 0, "signer", &signer));
  TRY(call_tape(c, 1, &tape, &record));
  TRY(call_config(c, 2, &config));
  TRY(expect_tape_signer(&record, signer));
  TRY(expect_active(&record, call_epoch(c, &config)));
  uint64_t sequence;
  TRY(expect_sequence(&record, d->expected_sequence, &sequence));
  uint64_t index;
  if (!history_find(tape->data, &record, d->version, &index)) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "version ");
    text_u64(&detail, d->version);
    text_str(&detail, " is not kept");
    return fail(ERR_INVALID_ARGUMENT, &detail);
  }
  record.version = d->version;
  return write_changed(tape, &record, sequence);
}

/* Removes an alias; kept_bytes is not lowered (the next Publish recounts it). */
uint64_t remove_alias(Call *c, const IxData *d) {
  Account *tape;
  TapeRecord record;
  TRY(load_signed_tape(c, &tape, &record));
  uint64_t sequence;
  TRY(expect_sequence(&record, d->expected_sequence, &sequence));
  if (!alias_name_valid(d->alias, d->alias_len)) {
    return fail3(ERR_INVALID_ARGUMENT, "invalid alias name", NULL, NULL);
  }
  uint64_t index;
  if (!alias_find(tape->data, &record, d->alias, d->alias_len, &index)) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "no alias ");
    text_bytes(&detail, d->alias, d->alias_len);
    return fail(ERR_INVALID_ARGUMENT, &detail);
  }
  alias_remove(tape->data, &record, index);
  return write_changed(tape, &record, sequence);
}

/* How many of the newest versions the tape keeps, 1..16. */
uint64_t set_keep(Call *c, const IxData *d) {
  Account *tape;
  TapeRecord record;
  TRY(load_signed_tape(c, &tape, &record));
  uint64_t sequence;
  TRY(expect_sequence(&record, d->expected_sequence, &sequence));
  if (d->keep < 1 || d->keep > KEEP_MAX) {
    return fail3(ERR_INVALID_ARGUMENT, "keep must be 1..16", NULL, NULL);
  }
  record.keep = d->keep;
  return write_changed(tape, &record, sequence);
}
