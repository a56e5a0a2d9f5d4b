/* Log lines built from pieces (the runtime logs bytes; there is no printf on chain). */
#pragma once

#include "sol.h"

#define TEXT_CAPACITY 240

typedef struct {
  char buf[TEXT_CAPACITY];
  uint64_t len;
} Text;

void text_clear(Text *t);
void text_str(Text *t, const char *s);
void text_bytes(Text *t, const uint8_t *s, uint64_t n);
void text_u64(Text *t, uint64_t v);
void text_log(const Text *t);
void log_str(const char *s);
