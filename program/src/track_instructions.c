#include "bytes.h"
#include "errors.h"
#include "instructions.h"
#include "lifecycle.h"

/* Accounts: payer s w, signer s, tape w, track w, config, system. */
uint64_t write_track(Call *c, const IxData *d) {
  Account *payer, *signer, *tape, *track;
  TapeRecord record;
  ConfigRecord config;
  TRY(call_wallet(c, 0, "payer", &payer));
  TRY(call_signer(c, 1, "signer", &signer));
  TRY(call_tape(c, 2, &tape, &record));
  TRY(call_writable(c, 3, "track", &track));
  TRY(call_config(c, 4, &config));
  TRY(call_expect_address(c, 5, &SYSTEM_PROGRAM_ID, "system program"));
  Seeds seeds;
  seeds_init(&seeds);
  seeds_add(&seeds, TRACK_SEED, sizeof(TRACK_SEED) - 1);
  seeds_add(&seeds, tape->key->x, SOL_PUBKEY_BYTES);
  seeds_add(&seeds, d->commitment, 32);
  TRY(call_expect_pda(c, track, &seeds, "track"));

  TRY(expect_tape_signer(&record, signer));
  TRY(expect_active(&record, call_epoch(c, &config)));
  if (call_owns(c, track)) {
    /* Same tape and commitment, so the same bytes: a retried upload succeeds and costs nothing. */
    LoadedTrack same;
    return call_track(c, 3, NULL, "track", &same);
  }
  if (!account_is_vacant(track)) {
    return fail3(ERR_INVALID_ACCOUNT_DATA, "track address is in use", NULL, NULL);
  }
  TRY(expect_room(&record, d->size, "track needs"));
  uint64_t track_count;
  TRY(checked_add(record.track_count, 1, MAX_U32, "track count", &track_count));
  uint64_t space = TRACK_FIXED_SIZE + d->content_type_len;
  TRY(expect_payer_holds(payer, rent_shortfall(c, space, *track->lamports), "track rent"));

  TRY(create_program_account(c, payer, track, space, &seeds));
  TrackRecord created = {
      tape->key->x, d->commitment, d->size, d->kind, false, 0, call_now(c), NULL, 0,
  };
  encode_track_fixed(track->data, &created);
  track->data[TRACK_FIXED_SIZE - 1] = (uint8_t)d->content_type_len;
  bytes_copy(track->data + TRACK_FIXED_SIZE, d->content_type, d->content_type_len);
  record.used += d->size;
  record.track_count = track_count;
  encode_tape(tape->data, &record);
  return 0;
}

/* Accounts: storage_authority s, config, track w. Idempotent. */
uint64_t certify_track(Call *c) {
  Account *authority;
  ConfigRecord config;
  LoadedTrack track;
  TRY(call_signer(c, 0, "storage authority", &authority));
  TRY(call_config(c, 1, &config));
  TRY(call_track(c, 2, NULL, "track", &track));
  if (!key_equal(authority->key, config.storage_authority)) {
    return fail3(ERR_UNAUTHORIZED_SIGNER, "only the storage authority certifies tracks", NULL, NULL);
  }
  if (track.record.certified) return 0;
  track.record.certified = true;
  encode_track_fixed(track.account->data, &track.record);
  return 0;
}

static uint64_t without_track(TapeRecord *tape, const TrackRecord *track) {
  TRY(checked_sub(tape->used, track->size, "tape used bytes", &tape->used));
  return checked_sub(tape->track_count, 1, "tape track count", &tape->track_count);
}

/* Accounts: receiver s w, signer s, tape w, track w. Allowed on expired tapes. */
uint64_t release_track(Call *c) {
  Account *receiver, *signer, *tape;
  TapeRecord record;
  LoadedTrack track;
  TRY(call_wallet(c, 0, "receiver", &receiver));
  TRY(call_signer(c, 1, "signer", &signer));
  TRY(call_tape(c, 2, &tape, &record));
  TRY(call_track(c, 3, tape->key->x, "track", &track));
  const TrackRecord *released = &track.record;

  TRY(expect_tape_signer(&record, signer));
  if (released->refs != 0) {
    Text detail;
    text_clear(&detail);
    text_u64(&detail, released->refs);
    text_str(&detail, " name(s) point at the track");
    return fail(ERR_TRACK_IN_USE, &detail);
  }
  TRY(without_track(&record, released));

  close_program_account(track.account, receiver);
  encode_tape(tape->data, &record);
  return 0;
}

uint64_t plan_track_release(TapeRecord *tape, const LoadedTrack *track, TrackRelease *out) {
  out->track = *track;
  TRY(checked_sub(track->record.refs, 1, "track refs", &out->refs));
  if (out->refs > 0) return 0;
  return without_track(tape, &track->record);
}

void apply_track_release(const TrackRelease *release, Account *receiver) {
  if (release->refs > 0) {
    TrackRecord record = release->track.record;
    record.refs = release->refs;
    encode_track_fixed(release->track.account->data, &record);
  } else {
    close_program_account(release->track.account, receiver);
  }
}
