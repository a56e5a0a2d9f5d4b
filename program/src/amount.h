/*
 * Exact storage costs: ceil(capacity / MiB) x epochs x price can pass 2^64 (docs/program.md:
 * "a cost above u64 is simply more than anyone holds"), and the refusal prints it exactly.
 * Numbers of up to 192 bits in 32-bit limbs (the BPF target has no 128-bit multiply).
 */
#pragma once

#include "text.h"

#define AMOUNT_LIMBS 6

typedef struct {
  uint32_t limb[AMOUNT_LIMBS]; /* least significant first */
} Amount;

void amount_from_u64(Amount *a, uint64_t v);
void amount_mul_u64(Amount *a, uint64_t v);
bool amount_is_zero(const Amount *a);
/* Whether the amount fits a u64, and its value when it does. */
bool amount_to_u64(const Amount *a, uint64_t *out);
void text_amount(Text *t, const Amount *a);
/* floor(x * f) for x and the bits of a non-negative f64 f, saturating at 2^64 - 1. */
uint64_t mul_f64_floor(uint64_t x, uint64_t f64_bits);
