/*
 * Strict little-endian decoding, as the TypeScript codecs (src/chain/byte-codec.ts) decode:
 * the first fault is kept and later reads do nothing, so a decoder reads on and reports the
 * fault a throwing decoder would have thrown.
 */
#pragma once

#include "text.h"

typedef enum {
  FAULT_NONE,
  FAULT_END,
  FAULT_U64_RANGE,
  FAULT_I64_RANGE,
  FAULT_TRAILING,
  FAULT_NOT_A,
  FAULT_CONFIG_VERSION,
  FAULT_UNKNOWN_TAG,
  /* A count or length past its table: "<field> <value> exceeds <max>". */
  FAULT_EXCEEDS,
} Fault;

typedef struct {
  const uint8_t *p;
  uint64_t len;
  uint64_t off;
  Fault fault;
  uint64_t fault_value;
  const char *fault_field;
  uint64_t fault_max;
} Reader;

/* Integers the TypeScript clients read as exact JavaScript numbers: at most 2^53 - 1. */
#define MAX_SAFE_INTEGER ((uint64_t)9007199254740991)

void reader_init(Reader *r, const uint8_t *p, uint64_t len);
void reader_fault(Reader *r, Fault fault, uint64_t value);
/* `value` (a count or length read just before), refused past `max`; 0 once refused. */
uint64_t rd_at_most(Reader *r, uint64_t value, uint64_t max, const char *field);
uint64_t rd_u8(Reader *r);
uint64_t rd_u64(Reader *r);
uint64_t rd_u64n(Reader *r);
int64_t rd_i64n(Reader *r);
/* The next n bytes (NULL after a fault). */
const uint8_t *rd_bytes(Reader *r, uint64_t n);
void rd_end(Reader *r);
bool reader_ok(const Reader *r);
/* The fault as the TypeScript LayoutError message. */
void reader_describe(const Reader *r, Text *t);
