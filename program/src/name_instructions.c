#include "bytes.h"
#include "errors.h"
#include "instructions.h"
#include "lifecycle.h"

enum { PREVIOUS_TRACK = 7 };

/* A '/'-separated segment starts with '.': hidden files, `.well-known/`, `.` and `..` are never
   published (docs/program.md, SetName). The same rule as src/chain/hidden-names.ts. */
static bool is_hidden_name(const uint8_t *name, uint64_t len) {
  for (uint64_t i = 0; i < len; i++) {
    if (name[i] == '.' && (i == 0 || name[i - 1] == '/')) return true;
  }
  return false;
}

/* Accounts: payer s w, signer s, tape w, name w, track w, config, system, [previous track w]. */
uint64_t set_name(Call *c, const IxData *d) {
  Account *payer, *signer, *tape, *name;
  TapeRecord tape_after;
  LoadedTrack track;
  ConfigRecord config;
  TRY(call_wallet(c, 0, "payer", &payer));
  TRY(call_signer(c, 1, "signer", &signer));
  TRY(call_tape(c, 2, &tape, &tape_after));
  TRY(call_writable(c, 3, "name", &name));
  TRY(call_track(c, 4, tape->key->x, "track", &track));
  TrackRecord *target = &track.record;
  TRY(call_config(c, 5, &config));
  TRY(call_expect_address(c, 6, &SYSTEM_PROGRAM_ID, "system program"));
  uint8_t name_hash[32];
  sha256_of(d->name, d->name_len, name_hash);
  Seeds seeds;
  seeds_init(&seeds);
  seeds_add(&seeds, NAME_SEED, sizeof(NAME_SEED) - 1);
  seeds_add(&seeds, tape->key->x, SOL_PUBKEY_BYTES);
  seeds_add(&seeds, name_hash, sizeof(name_hash));
  TRY(call_expect_pda(c, name, &seeds, "name"));

  TRY(expect_tape_signer(&tape_after, signer));
  if (d->name_len < 1 || d->name_len > MAX_NAME_BYTES) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "name must be 1..1024 bytes, got ");
    text_u64(&detail, d->name_len);
    return fail(ERR_INVALID_ARGUMENT, &detail);
  }
  if (is_hidden_name(d->name, d->name_len)) {
    return fail3(ERR_INVALID_NAME, "a name segment starts with \".\" ",
                 "(hidden files and .well-known/ are never published)", NULL);
  }
  if (d->metadata_len > MAX_NAME_METADATA_BYTES) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "metadata must be at most 1024 bytes, got ");
    text_u64(&detail, d->metadata_len);
    return fail(ERR_INVALID_ARGUMENT, &detail);
  }
  TRY(expect_active(&tape_after, call_epoch(c, &config)));
  if (!target->certified) return fail3(ERR_TRACK_NOT_CERTIFIED, "track is not certified", NULL, NULL);

  bool exists = call_owns(c, name);
  bool releasing = false;
  TrackRelease release;
  NameRecord current;
  if (exists) {
    Account *same;
    TRY(call_name(c, 3, tape->key->x, &same, &current));
    if (current.name_len != d->name_len || !bytes_equal(current.name, d->name, d->name_len)) {
      return fail3(ERR_INVALID_ACCOUNT_DATA, "name account holds another name", NULL, NULL);
    }
    if (!key_equal(track.account->key, current.track)) {
      if (c->in->account_count <= PREVIOUS_TRACK ||
          !key_equal(call_at(c, PREVIOUS_TRACK)->key, current.track)) {
        return fail3(ERR_ACCOUNT_MISMATCH,
                     "the track the name points at must be passed as previous track", NULL, NULL);
      }
      LoadedTrack previous;
      TRY(call_track(c, PREVIOUS_TRACK, tape->key->x, "previous track", &previous));
      TRY(plan_track_release(&tape_after, &previous, &release));
      releasing = true;
    }
  } else {
    if (!account_is_vacant(name)) {
      return fail3(ERR_INVALID_ACCOUNT_DATA, "name address is in use", NULL, NULL);
    }
    TRY(checked_add(tape_after.name_count, 1, MAX_U32, "name count", &tape_after.name_count));
  }
  bool repoint = !exists || releasing;
  uint64_t refs = target->refs;
  if (repoint) TRY(checked_add(target->refs, 1, MAX_U32, "track refs", &refs));
  uint64_t space = NAME_FIXED_SIZE + d->content_type_len + d->name_len;
  if (d->metadata_len > 0) space += 2 + d->metadata_len;
  /* Rent a closed previous track returns is not counted: the payer must hold it up front. */
  TRY(expect_payer_holds(payer, rent_shortfall(c, space, *name->lamports), "name rent"));

  /* Cross-program calls first, then the direct writes. */
  if (exists) {
    TRY(resize_settling_rent(c, payer, name, space));
  } else {
    TRY(create_program_account(c, payer, name, space, &seeds));
  }
  NameRecord record = {
      tape->key->x,    track.account->key->x, target->commitment, target->size, target->kind,
      call_now(c),     d->content_type, d->content_type_len, d->name,  d->name_len,
      d->metadata,     d->metadata_len,
  };
  encode_name(name->data, &record);
  if (repoint) {
    target->refs = refs;
    encode_track_fixed(track.account->data, target);
  }
  if (releasing) apply_track_release(&release, payer);
  encode_tape(tape->data, &tape_after);
  return 0;
}

/* Accounts: receiver s w, signer s, tape w, name w, track w. Allowed on expired tapes. */
uint64_t remove_name(Call *c) {
  Account *receiver, *signer, *tape, *name;
  TapeRecord tape_after;
  NameRecord removed;
  LoadedTrack track;
  TRY(call_wallet(c, 0, "receiver", &receiver));
  TRY(call_signer(c, 1, "signer", &signer));
  TRY(call_tape(c, 2, &tape, &tape_after));
  TRY(call_name(c, 3, tape->key->x, &name, &removed));
  if (!key_equal(call_at(c, 4)->key, removed.track)) {
    return fail3(ERR_ACCOUNT_MISMATCH, "track is not the one the name points at", NULL, NULL);
  }
  TRY(call_track(c, 4, tape->key->x, "track", &track));

  TRY(expect_tape_signer(&tape_after, signer));
  TRY(checked_sub(tape_after.name_count, 1, "tape name count", &tape_after.name_count));
  TrackRelease release;
  TRY(plan_track_release(&tape_after, &track, &release));

  close_program_account(name, receiver);
  apply_track_release(&release, receiver);
  encode_tape(tape->data, &tape_after);
  return 0;
}
