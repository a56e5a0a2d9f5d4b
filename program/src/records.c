#include "records.h"

#include "bytes.h"

static const uint8_t ZERO_KEY[SOL_PUBKEY_BYTES] = {0};

/* Only tags decode_ix accepts are ever named; the retired 5-9 have no name. */
static const char *const IX_NAMES[IX_COUNT] = {
    "InitConfig", "CreateTape", "ExtendTape", "ResizeTape", "SetDelegate", "", "", "", "", "",
    "Publish", "SetCurrent", "RemoveAlias", "SetKeep",
};

const char *ix_name(uint64_t tag) { return IX_NAMES[tag]; }

/* `u8 len, [24] name`: the name's field (NULL after a fault); a length past 24 is a fault. */
static const uint8_t *rd_alias_name(Reader *r, uint64_t *len) {
  uint64_t n = rd_u8(r);
  const uint8_t *field = rd_bytes(r, ALIAS_NAME_MAX);
  *len = rd_at_most(r, n, ALIAS_NAME_MAX, "alias length");
  return field;
}

static void expect_tag(Reader *r, uint64_t tag) {
  uint64_t found = rd_u8(r);
  if (reader_ok(r) && found != tag) reader_fault(r, FAULT_NOT_A, tag);
}

void decode_config(Reader *r, const uint8_t *data, uint64_t len, ConfigRecord *out) {
  reader_init(r, data, len);
  expect_tag(r, TAG_CONFIG);
  uint64_t version = rd_u8(r);
  if (reader_ok(r) && version != 1) reader_fault(r, FAULT_CONFIG_VERSION, 0);
  out->epoch_duration_secs = rd_u64n(r);
  out->genesis_time = rd_i64n(r);
  out->price_per_mib_epoch = rd_u64(r);
  out->mint = rd_bytes(r, SOL_PUBKEY_BYTES);
  out->treasury = rd_bytes(r, SOL_PUBKEY_BYTES);
  out->storage_authority = rd_bytes(r, SOL_PUBKEY_BYTES);
  out->admin = rd_bytes(r, SOL_PUBKEY_BYTES);
  rd_end(r);
}

void decode_tape(Reader *r, const uint8_t *data, uint64_t len, TapeRecord *out) {
  reader_init(r, data, len);
  expect_tag(r, TAG_TAPE);
  out->authority = rd_bytes(r, SOL_PUBKEY_BYTES);
  out->has_delegate = rd_u8(r) != 0;
  out->delegate = rd_bytes(r, SOL_PUBKEY_BYTES);
  out->capacity = rd_u64n(r);
  out->active_epoch = rd_u64n(r);
  out->expiry_epoch = rd_u64n(r);
  out->created_at = rd_i64n(r);
  out->payer = rd_bytes(r, SOL_PUBKEY_BYTES);
  out->version = rd_u64n(r);
  out->latest_version = rd_u64n(r);
  out->sequence = rd_u64n(r);
  out->kept_bytes = rd_u64n(r);
  out->keep = rd_u8(r);
  /* Only the used slots are read (the TypeScript decoder reads the same, in the same order). */
  out->history_len = rd_at_most(r, rd_u8(r), HISTORY_SLOTS, "history_len");
  for (uint64_t i = 0; i < HISTORY_SLOTS; i++) {
    if (i >= out->history_len) {
      rd_bytes(r, HISTORY_ENTRY);
      continue;
    }
    rd_u64n(r);
    rd_bytes(r, 32);
    rd_u64n(r);
    rd_i64n(r);
  }
  out->alias_count = rd_at_most(r, rd_u8(r), ALIAS_SLOTS, "alias_count");
  for (uint64_t i = 0; i < ALIAS_SLOTS; i++) {
    if (i >= out->alias_count) {
      rd_bytes(r, ALIAS_ENTRY);
      continue;
    }
    uint64_t len;
    rd_alias_name(r, &len);
    rd_u64n(r);
  }
  rd_end(r);
}

/* A writer over an account's data; fields go in the documented order. */
typedef struct {
  uint8_t *p;
  uint64_t off;
} Writer;

static void w_u8(Writer *w, uint64_t v) { w->p[w->off++] = (uint8_t)v; }
static void w_u64(Writer *w, uint64_t v) {
  put_u64(w->p + w->off, v);
  w->off += 8;
}
/*
 * A record may be rewritten from fields that already sit in place (the same bytes at the same
 * offset): those are skipped. Any other source is another account or the instruction data, so
 * the runs never overlap and the runtime's memcpy applies.
 */
static void w_bytes(Writer *w, const uint8_t *s, uint64_t n) {
  uint8_t *dst = w->p + w->off;
  if (dst != s) bytes_copy(dst, s, n);
  w->off += n;
}

void encode_config(uint8_t *out, const ConfigRecord *c) {
  Writer w = {out, 0};
  w_u8(&w, TAG_CONFIG);
  w_u8(&w, 1);
  w_u64(&w, c->epoch_duration_secs);
  w_u64(&w, (uint64_t)c->genesis_time);
  w_u64(&w, c->price_per_mib_epoch);
  w_bytes(&w, c->mint, SOL_PUBKEY_BYTES);
  w_bytes(&w, c->treasury, SOL_PUBKEY_BYTES);
  w_bytes(&w, c->storage_authority, SOL_PUBKEY_BYTES);
  w_bytes(&w, c->admin, SOL_PUBKEY_BYTES);
}

void encode_tape(uint8_t *out, const TapeRecord *t) {
  Writer w = {out, 0};
  w_u8(&w, TAG_TAPE);
  w_bytes(&w, t->authority, SOL_PUBKEY_BYTES);
  w_u8(&w, t->has_delegate ? 1 : 0);
  w_bytes(&w, t->has_delegate ? t->delegate : ZERO_KEY, SOL_PUBKEY_BYTES);
  w_u64(&w, t->capacity);
  w_u64(&w, t->active_epoch);
  w_u64(&w, t->expiry_epoch);
  w_u64(&w, (uint64_t)t->created_at);
  w_bytes(&w, t->payer, SOL_PUBKEY_BYTES);
  w_u64(&w, t->version);
  w_u64(&w, t->latest_version);
  w_u64(&w, t->sequence);
  w_u64(&w, t->kept_bytes);
  w_u8(&w, t->keep);
  w_u8(&w, t->history_len);
  out[TAPE_ALIAS_COUNT_OFFSET] = (uint8_t)t->alias_count;
}

void decode_ix(Reader *r, const uint8_t *data, uint64_t len, IxData *out) {
  reader_init(r, data, len);
  out->tag = rd_u8(r);
  if (!reader_ok(r)) return;
  switch (out->tag) {
    case IX_INIT_CONFIG:
      out->epoch_duration_secs = rd_u64n(r);
      out->genesis_time = rd_i64n(r);
      out->price_per_mib_epoch = rd_u64(r);
      out->storage_authority = rd_bytes(r, SOL_PUBKEY_BYTES);
      break;
    case IX_CREATE_TAPE:
      out->capacity = rd_u64n(r);
      out->epochs = rd_u64n(r);
      break;
    case IX_EXTEND_TAPE:
      out->epochs = rd_u64n(r);
      break;
    case IX_RESIZE_TAPE:
      out->add_bytes = rd_u64n(r);
      break;
    case IX_SET_DELEGATE:
      out->has_delegate = rd_u8(r) != 0;
      out->delegate = rd_bytes(r, SOL_PUBKEY_BYTES);
      break;
    case IX_PUBLISH:
      out->expected_sequence = rd_u64n(r);
      out->root = rd_bytes(r, 32);
      out->version_bytes = rd_u64n(r);
      out->kept_bytes = rd_u64n(r);
      out->alias = rd_alias_name(r, &out->alias_len);
      break;
    case IX_SET_CURRENT:
      out->expected_sequence = rd_u64n(r);
      out->version = rd_u64n(r);
      break;
    case IX_REMOVE_ALIAS:
      out->expected_sequence = rd_u64n(r);
      out->alias = rd_alias_name(r, &out->alias_len);
      break;
    case IX_SET_KEEP:
      out->expected_sequence = rd_u64n(r);
      out->keep = rd_u8(r);
      break;
    default:
      reader_fault(r, FAULT_UNKNOWN_TAG, out->tag);
      return;
  }
  rd_end(r);
}
