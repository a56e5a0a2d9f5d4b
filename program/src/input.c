#include "input.h"

/* Offsets within one serialized (non-duplicate) account of the aligned layout. */
enum {
  ACCOUNT_IS_SIGNER = 1,
  ACCOUNT_IS_WRITABLE = 2,
  ACCOUNT_EXECUTABLE = 3,
  ACCOUNT_KEY = 8,
  ACCOUNT_OWNER = 40,
  ACCOUNT_LAMPORTS = 72,
  ACCOUNT_DATA_LEN = 80,
  ACCOUNT_DATA = 88,
  DUPLICATE_ENTRY_SIZE = 8,
};

static uint64_t align8(uint64_t offset) { return (offset + 7) & ~(uint64_t)7; }

void input_parse(uint8_t *input, Input *out) {
  uint64_t offset = 0;
  uint64_t count = *(uint64_t *)input;
  offset += sizeof(uint64_t);
  out->account_count = count;
  for (uint64_t i = 0; i < count; i++) {
    uint8_t *entry = input + offset;
    uint8_t dup = entry[0];
    if (dup != SOL_NON_DUP_MARKER) {
      /* The runtime only ever names an earlier index. */
      if (i < INPUT_MAX_ACCOUNTS && dup < i) out->accounts[i] = out->accounts[dup];
      offset += DUPLICATE_ENTRY_SIZE;
      continue;
    }
    uint64_t data_len = *(uint64_t *)(entry + ACCOUNT_DATA_LEN);
    uint64_t rent_epoch_offset =
        align8(offset + ACCOUNT_DATA + data_len + SOL_MAX_PERMITTED_DATA_INCREASE);
    if (i < INPUT_MAX_ACCOUNTS) {
      Account *a = &out->slots[i];
      a->is_signer = entry[ACCOUNT_IS_SIGNER] != 0;
      a->is_writable = entry[ACCOUNT_IS_WRITABLE] != 0;
      a->executable = entry[ACCOUNT_EXECUTABLE] != 0;
      a->key = (SolPubkey *)(entry + ACCOUNT_KEY);
      a->owner = (SolPubkey *)(entry + ACCOUNT_OWNER);
      a->lamports = (uint64_t *)(entry + ACCOUNT_LAMPORTS);
      a->data_len = (uint64_t *)(entry + ACCOUNT_DATA_LEN);
      a->data = entry + ACCOUNT_DATA;
      a->rent_epoch = (uint64_t *)(input + rent_epoch_offset);
      out->accounts[i] = a;
    }
    offset = rent_epoch_offset + sizeof(uint64_t);
  }
  out->data_len = *(uint64_t *)(input + offset);
  offset += sizeof(uint64_t);
  out->data = input + offset;
  offset += out->data_len;
  out->program_id = (const SolPubkey *)(input + offset);
}
