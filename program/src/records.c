#include "records.h"

#include "bytes.h"

static const uint8_t ZERO_KEY[SOL_PUBKEY_BYTES] = {0};

/* Only tags decode_ix accepts are ever named; the retired 5-9 have no name. */
static const char *const IX_NAMES[IX_COUNT] = {
    "InitConfig", "CreateTape", "ExtendTape", "ResizeTape", "SetDelegate", "", "", "", "", "",
    "Publish",
};

const char *ix_name(uint64_t tag) { return IX_NAMES[tag]; }

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
  out->root = rd_bytes(r, 32);
  out->version_bytes = rd_u64n(r);
  out->published_at = rd_i64n(r);
  out->prev_version = rd_u64n(r);
  out->prev_root = rd_bytes(r, 32);
  out->prev_version_bytes = rd_u64n(r);
  out->kept_bytes = rd_u64n(r);
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
  w_bytes(&w, t->root != NULL ? t->root : ZERO_KEY, 32);
  w_u64(&w, t->version_bytes);
  w_u64(&w, (uint64_t)t->published_at);
  w_u64(&w, t->prev_version);
  w_bytes(&w, t->prev_root != NULL ? t->prev_root : ZERO_KEY, 32);
  w_u64(&w, t->prev_version_bytes);
  w_u64(&w, t->kept_bytes);
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
      out->expected_version = rd_u64n(r);
      out->root = rd_bytes(r, 32);
      out->version_bytes = rd_u64n(r);
      out->added_bytes = rd_u64n(r);
      break;
    default:
      reader_fault(r, FAULT_UNKNOWN_TAG, out->tag);
      return;
  }
  rd_end(r);
}
