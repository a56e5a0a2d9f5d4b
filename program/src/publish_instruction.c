#include "bytes.h"
#include "errors.h"
#include "instructions.h"

static uint64_t version_conflict(uint64_t expected, uint64_t current) {
  Text detail;
  text_clear(&detail);
  text_str(&detail, "tape is at version ");
  text_u64(&detail, current);
  text_str(&detail, ", not ");
  text_u64(&detail, expected);
  return fail(ERR_VERSION_CONFLICT, &detail);
}

/*
 * Accounts: signer s, storage_authority s, tape w, config. The storage authority's signature
 * certifies the version as a whole (the gateway holds every byte it references); the version
 * number is a compare-and-swap, so a publisher that lost a race rebases and retries.
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
  if (key_is_zero((const SolPubkey *)d->root)) {
    return fail3(ERR_INVALID_ARGUMENT, "root must not be zero", NULL, NULL);
  }
  if (d->added_bytes > d->version_bytes) {
    return fail3(ERR_INVALID_ARGUMENT, "added_bytes exceeds version_bytes", NULL, NULL);
  }
  TRY(expect_active(&record, call_epoch(c, &config)));
  if (d->expected_version != record.version) {
    return version_conflict(d->expected_version, record.version);
  }
  uint64_t version;
  TRY(checked_add(record.version, 1, MAX_SAFE_INTEGER, "version", &version));
  /* Both terms are at most 2^53 - 1: the sum is exact in 64 bits. */
  uint64_t kept = (record.version == 0 ? 0 : record.version_bytes) + d->added_bytes;
  if (d->version_bytes > kept) {
    return fail3(ERR_INVALID_ARGUMENT,
                 "version_bytes exceeds the previous version's bytes plus added_bytes", NULL, NULL);
  }
  TRY(expect_room(&record, kept, "kept versions need"));

  /* The current root moves to prev_root, whose bytes it is about to overwrite: copy it first. */
  uint8_t previous_root[32];
  bytes_copy(previous_root, record.root, sizeof(previous_root));
  record.prev_version = record.version;
  record.prev_root = previous_root;
  record.prev_version_bytes = record.version_bytes;
  record.version = version;
  record.root = d->root;
  record.version_bytes = d->version_bytes;
  record.kept_bytes = kept;
  record.published_at = call_now(c);
  encode_tape(tape->data, &record);
  return 0;
}
