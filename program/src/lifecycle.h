/* Creating this program's accounts, through the System program. */
#pragma once

#include "invocation.h"

/* Lamports the payer must add so an account of `space` bytes holding `held` is rent-exempt. */
uint64_t rent_shortfall(Call *c, uint64_t space, uint64_t held);
uint64_t expect_payer_holds(const Account *payer, uint64_t lamports, const char *what);
/*
 * Creates a rent-exempt account of `space` bytes owned by this program at the PDA of `seeds`
 * (bump included), paid by `payer`. A gift of lamports sent there beforehand cannot block it:
 * the address is topped up, allocated and assigned instead of created.
 */
uint64_t create_program_account(Call *c, Account *payer, Account *target, uint64_t space,
                                 const Seeds *seeds);
/* One account of a cross-program call, with the privileges the callee gets. */
typedef struct {
  Account *account;
  bool is_signer;
  bool is_writable;
} CpiAccount;

/* Cross-program call with PDA signer seeds (NULL: none) over the given accounts. */
uint64_t invoke(const SolPubkey *program, const CpiAccount *accounts, uint64_t count,
                const SolBytes *data, const Seeds *pda);
