/* The tape program's errors (docs/program.md, "Errors"): Solana Custom codes and their messages. */
#pragma once

#include "text.h"

enum {
  ERR_INSUFFICIENT_CAPACITY = 6000,
  ERR_TAPE_EXPIRED = 6001,
  ERR_UNAUTHORIZED_SIGNER = 6002,
  ERR_INSUFFICIENT_FUNDS = 6003,
  ERR_INVALID_ARGUMENT = 6004,
  /* 6005 track not certified, 6006 track in use: per-file instructions, retired in 1.2.0. */
  ERR_ACCOUNT_MISMATCH = 6007,
  ERR_ALREADY_EXISTS = 6008,
  ERR_ACCOUNT_NOT_FOUND = 6009,
  ERR_INVALID_ACCOUNT_DATA = 6010,
  /* 6011 invalid name: SetName, retired in 1.2.0. */
  ERR_VERSION_CONFLICT = 6012,
};

/* Logs `Error: <message>` and `Detail: <detail>`, returns the code. */
uint64_t fail(uint64_t code, const Text *detail);
/* The same with a detail made of up to three strings (NULL ends it early). */
uint64_t fail3(uint64_t code, const char *a, const char *b, const char *c);

/* Propagates a failure: every check returns 0 or the error the program ends with. */
#define TRY(expr)                      \
  do {                                 \
    uint64_t try_result_ = (expr);     \
    if (try_result_ != 0) return try_result_; \
  } while (0)
