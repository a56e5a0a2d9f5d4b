/* Storage-token payments: the payer's associated token account to the network's treasury. */
#pragma once

#include "amount.h"
#include "invocation.h"

typedef struct {
  Account *payer;
  Account *source;
  Account *treasury;
  Amount amount;
} StoragePayment;

/* Writable, and the treasury is the network's: checked with the other accounts. */
uint64_t expect_payment_accounts(const ConfigRecord *config, const Account *source,
                                 const Account *treasury);
/* Before any effect: the source is the payer's ATA of the storage mint and holds the amount. */
uint64_t check_storage_payment(const ConfigRecord *config, const StoragePayment *p);
/* SPL Token Transfer, signed by the payer (nothing moves for a zero amount). */
uint64_t pay_storage(const StoragePayment *p);
/* ceil(capacity / MiB) x epochs x price, exactly. */
void storage_cost(uint64_t capacity, uint64_t epochs, uint64_t price, Amount *out);
/* (ceil((capacity + add) / MiB) - ceil(capacity / MiB)) x remaining epochs x price. */
void resize_cost(uint64_t capacity, uint64_t add, uint64_t remaining_epochs, uint64_t price,
                 Amount *out);
