#include "errors.h"

static const char *const MESSAGES[] = {
    "insufficient capacity", "tape expired",      "unauthorized signer", "insufficient funds",
    "invalid argument",      "track not certified", "track in use",      "account mismatch",
    "already exists",        "account not found", "invalid account data", "invalid name",
    "version conflict",
};

uint64_t fail(uint64_t code, const Text *detail) {
  Text line;
  text_clear(&line);
  text_str(&line, "Error: ");
  text_str(&line, MESSAGES[code - ERR_INSUFFICIENT_CAPACITY]);
  text_log(&line);
  if (detail->len > 0) {
    text_clear(&line);
    text_str(&line, "Detail: ");
    text_bytes(&line, (const uint8_t *)detail->buf, detail->len);
    text_log(&line);
  }
  return code;
}

uint64_t fail3(uint64_t code, const char *a, const char *b, const char *c) {
  Text detail;
  text_clear(&detail);
  text_str(&detail, a);
  if (b != NULL) text_str(&detail, b);
  if (b != NULL && c != NULL) text_str(&detail, c);
  return fail(code, &detail);
}
