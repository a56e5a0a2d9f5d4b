/*
 * The few parts of Solana's program ABI the tape program uses: the serialized input of the
 * BPF loaders (aligned layout), the C calling convention of the runtime's syscalls, and the
 * structures cross-program invocation reads. Written from Solana's documentation of the ABI
 * (the C SDK's solana_sdk.h describes the same layouts); only what this program needs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SOL_PUBKEY_BYTES 32

typedef struct {
  uint8_t x[SOL_PUBKEY_BYTES];
} SolPubkey;

/* What sol_invoke_signed_c reads for each account of a cross-program call. */
typedef struct {
  SolPubkey *key;
  uint64_t *lamports;
  uint64_t data_len;
  uint8_t *data;
  SolPubkey *owner;
  uint64_t rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

typedef struct {
  SolPubkey *pubkey;
  bool is_writable;
  bool is_signer;
} SolAccountMeta;

typedef struct {
  SolPubkey *program_id;
  SolAccountMeta *accounts;
  uint64_t account_len;
  uint8_t *data;
  uint64_t data_len;
} SolInstruction;

typedef struct {
  const uint8_t *addr;
  uint64_t len;
} SolSignerSeed;

typedef struct {
  const SolSignerSeed *addr;
  uint64_t len;
} SolSignerSeeds;

typedef struct {
  const uint8_t *addr;
  uint64_t len;
} SolBytes;

/* The Clock sysvar as sol_get_clock_sysvar writes it. */
typedef struct {
  uint64_t slot;
  int64_t epoch_start_timestamp;
  uint64_t epoch;
  uint64_t leader_schedule_epoch;
  int64_t unix_timestamp;
} SolClock;

/* The Rent sysvar; the exemption threshold is an f64, kept as its bits (no floating point here). */
typedef struct {
  uint64_t lamports_per_byte_year;
  uint64_t exemption_threshold_bits;
  uint8_t burn_percent;
} SolRent;

/* Program results: 0 is success, a value below 2^32 a custom error, builtins are index << 32. */
#define SOL_SUCCESS ((uint64_t)0)
#define SOL_TO_BUILTIN(index) ((uint64_t)(index) << 32)
#define SOL_ERROR_INVALID_INSTRUCTION_DATA SOL_TO_BUILTIN(3)
#define SOL_ERROR_NOT_ENOUGH_ACCOUNT_KEYS SOL_TO_BUILTIN(11)

/* An account's data may grow by this much within one instruction (the serialized input reserves it). */
#define SOL_MAX_PERMITTED_DATA_INCREASE ((uint64_t)10240)
/* Marker of an account that is not a duplicate of an earlier one in the serialized input. */
#define SOL_NON_DUP_MARKER 0xff

/* Syscalls (the loader links them by name). */
extern void sol_log_(const char *message, uint64_t length);
extern uint64_t sol_invoke_signed_c(const SolInstruction *instruction,
                                    const SolAccountInfo *account_infos, int account_infos_len,
                                    const SolSignerSeeds *signers_seeds, int signers_seeds_len);
extern uint64_t sol_try_find_program_address(const SolSignerSeed *seeds, int seeds_len,
                                             const SolPubkey *program_id, SolPubkey *address,
                                             uint8_t *bump_seed);
extern uint64_t sol_get_clock_sysvar(void *clock);
extern uint64_t sol_get_rent_sysvar(void *rent);
extern uint64_t sol_sha256(const SolBytes *bytes, int bytes_len, uint8_t *result);
extern void sol_memcpy_(void *dst, const void *src, uint64_t n);
extern void sol_memset_(void *dst, uint8_t value, uint64_t n);
extern void sol_memcmp_(const void *a, const void *b, uint64_t n, int *result);
