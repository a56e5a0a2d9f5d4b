#include "reader.h"

#include "bytes.h"

static const char *const ACCOUNT_KINDS[] = {"", "Config", "Tape", "Track", "Name"};

void reader_init(Reader *r, const uint8_t *p, uint64_t len) {
  r->p = p;
  r->len = len;
  r->off = 0;
  r->fault = FAULT_NONE;
  r->fault_value = 0;
}

void reader_fault(Reader *r, Fault fault, uint64_t value) {
  if (r->fault != FAULT_NONE) return;
  r->fault = fault;
  r->fault_value = value;
}

bool reader_ok(const Reader *r) { return r->fault == FAULT_NONE; }

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
uint64_t rd_u16(Reader *r) { return rd_le(r, 2); }
uint64_t rd_u32(Reader *r) { return rd_le(r, 4); }
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

static bool in_range(uint8_t b, uint8_t lo, uint8_t hi) { return b >= lo && b <= hi; }

#define WORD_BYTES 8
#define HIGH_BITS ((uint64_t)0x8080808080808080)

/* Index of the first byte from `i` on that is not ASCII, eight aligned bytes at a time. */
static uint64_t skip_ascii(const uint8_t *s, uint64_t i, uint64_t n) {
  while (i < n && ((uintptr_t)(s + i) % WORD_BYTES) != 0 && s[i] < 0x80) i++;
  while (((uintptr_t)(s + i) % WORD_BYTES) == 0 && n - i >= WORD_BYTES) {
    uint64_t word;
    /* An aligned eight-byte copy is one load; memcpy keeps it free of aliasing questions. */
    __builtin_memcpy(&word, __builtin_assume_aligned(s + i, WORD_BYTES), WORD_BYTES);
    if ((word & HIGH_BITS) != 0) break;
    i += WORD_BYTES;
  }
  while (i < n && s[i] < 0x80) i++;
  return i;
}

/* Well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF). */
static bool valid_utf8(const uint8_t *s, uint64_t n) {
  uint64_t i = 0;
  while (i < n) {
    uint8_t b = s[i];
    if (b < 0x80) {
      i = skip_ascii(s, i, n);
      continue;
    }
    uint64_t extra;
    uint8_t lo = 0x80, hi = 0xbf;
    if (in_range(b, 0xc2, 0xdf)) {
      extra = 1;
    } else if (in_range(b, 0xe0, 0xef)) {
      extra = 2;
      if (b == 0xe0) lo = 0xa0;
      if (b == 0xed) hi = 0x9f;
    } else if (in_range(b, 0xf0, 0xf4)) {
      extra = 3;
      if (b == 0xf0) lo = 0x90;
      if (b == 0xf4) hi = 0x8f;
    } else {
      return false;
    }
    if (extra > n - i - 1) return false;
    if (!in_range(s[i + 1], lo, hi)) return false;
    for (uint64_t k = 2; k <= extra; k++) {
      if (!in_range(s[i + k], 0x80, 0xbf)) return false;
    }
    i += extra + 1;
  }
  return true;
}

const uint8_t *rd_str(Reader *r, uint64_t length_bytes, uint64_t *len) {
  uint64_t n = length_bytes == 1 ? rd_u8(r) : rd_u16(r);
  const uint8_t *s = rd_bytes(r, n);
  *len = s == NULL ? 0 : n;
  if (s != NULL && !valid_utf8(s, n)) {
    reader_fault(r, FAULT_UTF8, 0);
    *len = 0;
    return NULL;
  }
  return s;
}

uint64_t rd_track_kind(Reader *r) {
  uint64_t kind = rd_u8(r);
  if (r->fault == FAULT_NONE && kind > 1) reader_fault(r, FAULT_TRACK_KIND, 0);
  return kind;
}

void rd_optional_bytes16(Reader *r, const uint8_t **out, uint64_t *len) {
  *out = NULL;
  *len = 0;
  if (r->fault != FAULT_NONE || r->off == r->len) return;
  uint64_t n = rd_u16(r);
  const uint8_t *p = rd_bytes(r, n);
  if (p == NULL) return;
  *out = p;
  *len = n;
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
    case FAULT_UTF8:
      text_str(t, "invalid UTF-8");
      break;
    case FAULT_TRAILING:
      text_u64(t, r->fault_value);
      text_str(t, " trailing bytes");
      break;
    case FAULT_TRACK_KIND:
      text_str(t, "unknown track kind");
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
  }
}
