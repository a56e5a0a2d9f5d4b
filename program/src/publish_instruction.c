#include "bytes.h"
#include "errors.h"
#include "history.h"
#include "instructions.h"

/*
 * Accounts: signer s, storage_authority s, tape w, config. The storage authority's signature
 * certifies the version as a whole (the gateway holds every byte it references) and kept_bytes
 * (the unique bytes of every version kept after this Publish). The tape's sequence is a
 * compare-and-swap, so a publisher that lost a race re-reads the tape and retries. Without an
 * alias the new version becomes current; with one, the alias points at it and current stays.
 */
uint64_t publish(Call *c, const IxData *d) {
  Account *signer, *storage_authority, *tape;
  TapeRecord record;
  ConfigRecord config;
  TRY(call_signer(c, 0, "signer", &signer));
  TRY(call_signer(c, 1, "storage authority", &storage_authority));
  TRY(call_tape(c, 2, &tape, &record));
  TRY(call_config(c, 3, &config));

  TRY(expect_tape_signer(&record, signer));
  if (!key_equal(storage_authority->key, config.storage_authority)) {
    return fail3(ERR_UNAUTHORIZED_SIGNER, "only the storage authority certifies versions", NULL,
                 NULL);
  }
  TRY(expect_active(&record, call_epoch(c, &config)));
  uint64_t sequence;
  TRY(expect_sequence(&record, d->expected_sequence, &sequence));
  if (key_is_zero((const SolPubkey *)d->root)) {
    return fail3(ERR_INVALID_ARGUMENT, "root must not be zero", NULL, NULL);
  }
  if (d->version_bytes > d->kept_bytes) {
    return fail3(ERR_INVALID_ARGUMENT, "version_bytes exceeds kept_bytes", NULL, NULL);
  }
  TRY(expect_room(&record, d->kept_bytes, "kept versions need"));
  uint64_t version;
  TRY(checked_add(record.latest_version, 1, MAX_SAFE_INTEGER, "version", &version));
  uint64_t existing;
  if (d->alias_len > 0) {
    if (!alias_name_valid(d->alias, d->alias_len)) {
      return fail3(ERR_INVALID_ARGUMENT, "invalid alias name", NULL, NULL);
    }
    if (!alias_find(tape->data, &record, d->alias, d->alias_len, &existing) &&
        record.alias_count >= ALIAS_SLOTS) {
      return fail3(ERR_INVALID_ARGUMENT, "a tape has at most 8 aliases", NULL, NULL);
    }
  }

  /* The kept set (at most 16 + 8 + 1) and the new version fit the 32 slots. */
  KeptVersion entry = {version, d->root, d->version_bytes, call_now(c)};
  history_append(tape->data, &record, &entry);
  if (d->alias_len > 0) {
    alias_set(tape->data, &record, d->alias, d->alias_len, version);
  } else {
    record.version = version;
  }
  record.latest_version = version;
  record.sequence = sequence;
  record.kept_bytes = d->kept_bytes;
  history_evict(tape->data, &record);
  encode_tape(tape->data, &record);
  return 0;
}
