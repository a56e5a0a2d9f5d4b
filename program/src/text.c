#include "text.h"

#include "bytes.h"

void text_clear(Text *t) { t->len = 0; }

void text_bytes(Text *t, const uint8_t *s, uint64_t n) {
  for (uint64_t i = 0; i < n && t->len < TEXT_CAPACITY; i++) t->buf[t->len++] = (char)s[i];
}

void text_str(Text *t, const char *s) { text_bytes(t, (const uint8_t *)s, cstr_len(s)); }

void text_u64(Text *t, uint64_t v) {
  char digits[20];
  uint64_t n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0 && t->len < TEXT_CAPACITY) t->buf[t->len++] = digits[--n];
}

void text_log(const Text *t) { sol_log_(t->buf, t->len); }

void log_str(const char *s) { sol_log_(s, cstr_len(s)); }
