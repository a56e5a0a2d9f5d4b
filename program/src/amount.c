#include "amount.h"

void amount_from_u64(Amount *a, uint64_t v) {
  for (int i = 0; i < AMOUNT_LIMBS; i++) a->limb[i] = 0;
  a->limb[0] = (uint32_t)v;
  a->limb[1] = (uint32_t)(v >> 32);
}

static void mul_u32_shifted(const Amount *a, uint32_t m, int shift, Amount *acc) {
  uint64_t carry = 0;
  for (int i = 0; i + shift < AMOUNT_LIMBS; i++) {
    uint64_t sum = (uint64_t)a->limb[i] * m + acc->limb[i + shift] + carry;
    acc->limb[i + shift] = (uint32_t)sum;
    carry = sum >> 32;
  }
}

void amount_mul_u64(Amount *a, uint64_t v) {
  Amount product;
  amount_from_u64(&product, 0);
  mul_u32_shifted(a, (uint32_t)v, 0, &product);
  mul_u32_shifted(a, (uint32_t)(v >> 32), 1, &product);
  *a = product;
}

bool amount_is_zero(const Amount *a) {
  for (int i = 0; i < AMOUNT_LIMBS; i++) {
    if (a->limb[i] != 0) return false;
  }
  return true;
}

bool amount_to_u64(const Amount *a, uint64_t *out) {
  for (int i = 2; i < AMOUNT_LIMBS; i++) {
    if (a->limb[i] != 0) return false;
  }
  *out = ((uint64_t)a->limb[1] << 32) | a->limb[0];
  return true;
}

/* Divides in place by a divisor below 2^32; returns the remainder. */
static uint64_t divide_small(Amount *a, uint64_t divisor) {
  uint64_t rem = 0;
  for (int i = AMOUNT_LIMBS - 1; i >= 0; i--) {
    uint64_t cur = (rem << 32) | a->limb[i];
    a->limb[i] = (uint32_t)(cur / divisor);
    rem = cur % divisor;
  }
  return rem;
}

void text_amount(Text *t, const Amount *a) {
  /* Groups of nine digits, least significant first (192 bits need at most 58 digits). */
  uint64_t groups[8];
  int n = 0;
  Amount rest = *a;
  do {
    groups[n++] = divide_small(&rest, 1000000000);
  } while (!amount_is_zero(&rest) && n < 8);
  text_u64(t, groups[n - 1]);
  for (int i = n - 2; i >= 0; i--) {
    char digits[9];
    uint64_t g = groups[i];
    for (int k = 8; k >= 0; k--) {
      digits[k] = (char)('0' + g % 10);
      g /= 10;
    }
    text_bytes(t, (const uint8_t *)digits, 9);
  }
}

uint64_t mul_f64_floor(uint64_t x, uint64_t f64_bits) {
  uint64_t exponent = (f64_bits >> 52) & 0x7ff;
  uint64_t mantissa = f64_bits & (((uint64_t)1 << 52) - 1);
  if ((f64_bits >> 63) != 0 || exponent == 0) return 0;
  if (exponent == 0x7ff) return UINT64_MAX;
  mantissa |= (uint64_t)1 << 52;
  /* f = mantissa x 2^(exponent - 1075) */
  Amount product;
  amount_from_u64(&product, x);
  amount_mul_u64(&product, mantissa);
  int64_t shift = (int64_t)exponent - 1075;
  if (shift < 0) {
    for (int64_t s = -shift; s > 0;) {
      uint64_t step = s > 31 ? 31 : (uint64_t)s;
      divide_small(&product, (uint64_t)1 << step);
      s -= (int64_t)step;
    }
  } else {
    for (int64_t s = shift; s > 0;) {
      uint64_t step = s > 31 ? 31 : (uint64_t)s;
      uint64_t probe;
      if (!amount_to_u64(&product, &probe)) return UINT64_MAX;
      amount_mul_u64(&product, (uint64_t)1 << step);
      s -= (int64_t)step;
    }
  }
  uint64_t out;
  return amount_to_u64(&product, &out) ? out : UINT64_MAX;
}
