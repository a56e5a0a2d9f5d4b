#include "reader.h"

#include "bytes.h"

static const char *const ACCOUNT_KINDS[] = {"", "Config", "Tape"};

void reader_init(Reader *r, const uint8_t *p, uint64_t len) {
  r->p = p;
  r->len = len;
  r->off = 0;
  r->fault = FAULT_NONE;
  r->fault_value = 0;
  r->fault_field = "";
  r->fault_max = 0;
}

void reader_fault(Reader *r, Fault fault, uint64_t value) {
  if (r->fault != FAULT_NONE) return;
  r->fault = fault;
  r->fault_value = value;
}

bool reader_ok(const Reader *r) { return r->fault == FAULT_NONE; }

uint64_t rd_at_most(Reader *r, uint64_t value, uint64_t max, const char *field) {
  if (r->fault != FAULT_NONE) return 0;
  if (value <= max) return value;
  reader_fault(r, FAULT_EXCEEDS, value);
  r->fault_field = field;
  r->fault_max = max;
  return 0;
}

const uint8_t *rd_bytes(Reader *r, uint64_t n) {
  if (r->fault != FAULT_NONE) return NULL;
  if (n > r->len - r->off) {
    reader_fault(r, FAULT_END, 0);
    return NULL;
  }
  const uint8_t *out = r->p + r->off;
  r->off += n;
  return out;
}

static uint64_t rd_le(Reader *r, uint64_t n) {
  const uint8_t *p = rd_bytes(r, n);
  if (p == NULL) return 0;
  uint64_t v = 0;
  for (uint64_t i = n; i > 0; i--) v = (v << 8) | p[i - 1];
  return v;
}

uint64_t rd_u8(Reader *r) { return rd_le(r, 1); }
uint64_t rd_u64(Reader *r) { return rd_le(r, 8); }

uint64_t rd_u64n(Reader *r) {
  uint64_t v = rd_u64(r);
  if (v > MAX_SAFE_INTEGER) {
    reader_fault(r, FAULT_U64_RANGE, 0);
    return 0;
  }
  return v;
}

int64_t rd_i64n(Reader *r) {
  int64_t v = (int64_t)rd_u64(r);
  if (v > (int64_t)MAX_SAFE_INTEGER || v < -(int64_t)MAX_SAFE_INTEGER) {
    reader_fault(r, FAULT_I64_RANGE, 0);
    return 0;
  }
  return v;
}

void rd_end(Reader *r) {
  if (r->fault == FAULT_NONE && r->off != r->len) reader_fault(r, FAULT_TRAILING, r->len - r->off);
}

void reader_describe(const Reader *r, Text *t) {
  switch (r->fault) {
    case FAULT_NONE:
      break;
    case FAULT_END:
      text_str(t, "unexpected end of data");
      break;
    case FAULT_U64_RANGE:
      text_str(t, "u64 out of range");
      break;
    case FAULT_I64_RANGE:
      text_str(t, "i64 out of range");
      break;
    case FAULT_TRAILING:
      text_u64(t, r->fault_value);
      text_str(t, " trailing bytes");
      break;
    case FAULT_NOT_A:
      text_str(t, "not a ");
      text_str(t, ACCOUNT_KINDS[r->fault_value]);
      text_str(t, " account");
      break;
    case FAULT_CONFIG_VERSION:
      text_str(t, "unknown config version");
      break;
    case FAULT_UNKNOWN_TAG:
      text_str(t, "unknown instruction tag ");
      text_u64(t, r->fault_value);
      break;
    case FAULT_EXCEEDS:
      text_str(t, r->fault_field);
      text_str(t, " ");
      text_u64(t, r->fault_value);
      text_str(t, " exceeds ");
      text_u64(t, r->fault_max);
      break;
  }
}
