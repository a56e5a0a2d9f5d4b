/*
 * One execution of the tape program: the instruction's accounts with the checks every
 * instruction shares (flags, addresses, owners, tags, PDA derivations), the clock and rent.
 * Every PDA is derived with the runtime's syscall, including those of records the program
 * wrote itself: a record is only trusted at the address its own fields derive.
 */
#pragma once

#include "input.h"
#include "records.h"

extern const SolPubkey SYSTEM_PROGRAM_ID;
extern const SolPubkey TOKEN_PROGRAM_ID;
extern const SolPubkey ASSOCIATED_TOKEN_PROGRAM_ID;
/* First seed of the tape PDA: ["tape", authority]. */
extern const uint8_t TAPE_SEED[5];

typedef struct {
  Input *in;
  const SolPubkey *program_id;
  bool have_clock;
  SolClock clock;
  bool have_rent;
  SolRent rent;
} Call;

/* Seeds of one PDA, with room for the bump. */
#define MAX_SEEDS 4
typedef struct {
  SolSignerSeed seed[MAX_SEEDS];
  int count;
  uint8_t bump;
} Seeds;

void seeds_init(Seeds *s);
void seeds_add(Seeds *s, const uint8_t *addr, uint64_t len);

Account *call_at(Call *c, uint64_t index);
bool call_owns(Call *c, const Account *a);
bool account_is_vacant(const Account *a);
int64_t call_now(Call *c);
uint64_t call_minimum_balance(Call *c, uint64_t data_len);
uint64_t call_epoch(Call *c, const ConfigRecord *config);

uint64_t call_signer(Call *c, uint64_t index, const char *role, Account **out);
uint64_t call_writable(Call *c, uint64_t index, const char *role, Account **out);
/* A payer or receiver: signs and is writable. */
uint64_t call_wallet(Call *c, uint64_t index, const char *role, Account **out);
uint64_t call_expect_address(Call *c, uint64_t index, const SolPubkey *expected, const char *role);
/* Checks that `a` is the PDA of `seeds`; the bump goes into `seeds` (to create the account). */
uint64_t call_expect_pda(Call *c, const Account *a, Seeds *seeds, const char *role);

uint64_t call_config(Call *c, uint64_t index, ConfigRecord *out);
uint64_t call_tape(Call *c, uint64_t index, Account **account, TapeRecord *out);

/* The tape's authority, or its delegate when it has one. */
uint64_t expect_tape_signer(const TapeRecord *tape, const Account *signer);
uint64_t expect_active(const TapeRecord *tape, uint64_t current_epoch);
/* `needed` within capacity; `what` names the need ("kept versions need"). */
uint64_t expect_room(const TapeRecord *tape, uint64_t needed, const char *what);
/* a + b for a stored counter, refused past `max`. */
uint64_t checked_add(uint64_t a, uint64_t b, uint64_t max, const char *what, uint64_t *out);
/* The compare-and-swap of every tape change (`version conflict` naming the tape's sequence);
   `next` gets the sequence after the change. */
uint64_t expect_sequence(const TapeRecord *tape, uint64_t expected, uint64_t *next);
