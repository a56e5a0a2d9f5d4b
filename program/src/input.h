/* The loader's serialized input: the instruction's accounts, its data and the program id. */
#pragma once

#include "sol.h"

/* One account of the instruction; every pointer points into the serialized input. */
typedef struct {
  SolPubkey *key;
  SolPubkey *owner;
  uint64_t *lamports;
  /* The serialized length: setting it resizes the account (by at most 10 KiB per instruction). */
  uint64_t *data_len;
  uint8_t *data;
  uint64_t *rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} Account;

/* The program reads at most 8 accounts; later ones are counted but not kept. */
#define INPUT_MAX_ACCOUNTS 16

typedef struct {
  Account slots[INPUT_MAX_ACCOUNTS];
  /* A duplicate of an earlier account points at that account's slot. */
  Account *accounts[INPUT_MAX_ACCOUNTS];
  uint64_t account_count;
  const uint8_t *data;
  uint64_t data_len;
  const SolPubkey *program_id;
} Input;

void input_parse(uint8_t *input, Input *out);
