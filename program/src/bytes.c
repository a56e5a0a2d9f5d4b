#include "bytes.h"

/* Past this length the runtime's memcmp (about 10 CU plus 1 per 250 bytes) beats a byte loop. */
#define SYSCALL_COMPARE_FROM 64

bool bytes_equal(const uint8_t *a, const uint8_t *b, uint64_t n) {
  if (n >= SYSCALL_COMPARE_FROM) {
    int result = 0;
    sol_memcmp_(a, b, n, &result);
    return result == 0;
  }
  for (uint64_t i = 0; i < n; i++) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool key_equal(const SolPubkey *a, const uint8_t *b) { return bytes_equal(a->x, b, SOL_PUBKEY_BYTES); }

bool key_is_zero(const SolPubkey *a) {
  for (uint64_t i = 0; i < SOL_PUBKEY_BYTES; i++) {
    if (a->x[i] != 0) return false;
  }
  return true;
}

/* Callers never pass overlapping runs (the syscall refuses them). */
void bytes_copy(uint8_t *dst, const uint8_t *src, uint64_t n) {
  if (n > 0) sol_memcpy_(dst, src, n);
}

static uint64_t get_le(const uint8_t *p, uint64_t n) {
  uint64_t v = 0;
  for (uint64_t i = n; i > 0; i--) v = (v << 8) | p[i - 1];
  return v;
}

static void put_le(uint8_t *p, uint64_t v, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    p[i] = (uint8_t)(v & 0xff);
    v >>= 8;
  }
}

uint64_t get_u16(const uint8_t *p) { return get_le(p, 2); }
uint64_t get_u32(const uint8_t *p) { return get_le(p, 4); }
uint64_t get_u64(const uint8_t *p) { return get_le(p, 8); }
void put_u32(uint8_t *p, uint64_t v) { put_le(p, v, 4); }
void put_u64(uint8_t *p, uint64_t v) { put_le(p, v, 8); }

uint64_t cstr_len(const char *s) {
  uint64_t n = 0;
  while (s[n] != 0) n++;
  return n;
}

void *memcpy(void *dst, const void *src, size_t n) {
  bytes_copy((uint8_t *)dst, (const uint8_t *)src, n);
  return dst;
}

void *memset(void *dst, int value, size_t n) {
  if (n > 0) sol_memset_(dst, (uint8_t)value, n);
  return dst;
}
