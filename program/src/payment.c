#include "payment.h"

#include "bytes.h"
#include "errors.h"
#include "lifecycle.h"

#define MIB ((uint64_t)1 << 20)
#define TOKEN_TRANSFER 3
#define TOKEN_ACCOUNT_SIZE 165
#define TOKEN_ACCOUNT_MINT 0
#define TOKEN_ACCOUNT_OWNER 32
#define TOKEN_ACCOUNT_AMOUNT 64
#define TOKEN_ACCOUNT_STATE 108
#define TOKEN_ACCOUNT_INITIALIZED 1

uint64_t expect_payment_accounts(const ConfigRecord *config, const Account *source,
                                 const Account *treasury) {
  if (!source->is_writable) {
    return fail3(ERR_ACCOUNT_MISMATCH, "payer token account must be writable", NULL, NULL);
  }
  if (!treasury->is_writable) return fail3(ERR_ACCOUNT_MISMATCH, "treasury must be writable", NULL, NULL);
  if (!key_equal(treasury->key, config->treasury)) {
    return fail3(ERR_ACCOUNT_MISMATCH, "treasury is not the network treasury", NULL, NULL);
  }
  return 0;
}

static uint64_t billable_mib(uint64_t capacity) { return capacity / MIB + (capacity % MIB != 0); }

void storage_cost(uint64_t capacity, uint64_t epochs, uint64_t price, Amount *out) {
  amount_from_u64(out, billable_mib(capacity));
  amount_mul_u64(out, epochs);
  amount_mul_u64(out, price);
}

void resize_cost(uint64_t capacity, uint64_t add, uint64_t remaining_epochs, uint64_t price,
                 Amount *out) {
  amount_from_u64(out, billable_mib(capacity + add) - billable_mib(capacity));
  amount_mul_u64(out, remaining_epochs);
  amount_mul_u64(out, price);
}

uint64_t check_storage_payment(const ConfigRecord *config, const StoragePayment *p) {
  SolSignerSeed seeds[3] = {
      {p->payer->key->x, SOL_PUBKEY_BYTES},
      {TOKEN_PROGRAM_ID.x, SOL_PUBKEY_BYTES},
      {config->mint, SOL_PUBKEY_BYTES},
  };
  SolPubkey ata;
  uint8_t bump;
  if (sol_try_find_program_address(seeds, 3, &ASSOCIATED_TOKEN_PROGRAM_ID, &ata, &bump) != 0 ||
      !key_equal(p->source->key, ata.x)) {
    return fail3(ERR_INSUFFICIENT_FUNDS, "source is not the payer's storage-token account", NULL,
                 NULL);
  }
  if (amount_is_zero(&p->amount)) return 0;
  const Account *s = p->source;
  if (!key_equal(s->owner, TOKEN_PROGRAM_ID.x) || *s->data_len != TOKEN_ACCOUNT_SIZE ||
      !bytes_equal(s->data + TOKEN_ACCOUNT_MINT, config->mint, SOL_PUBKEY_BYTES) ||
      !key_equal(p->payer->key, s->data + TOKEN_ACCOUNT_OWNER) ||
      s->data[TOKEN_ACCOUNT_STATE] != TOKEN_ACCOUNT_INITIALIZED) {
    return fail3(ERR_INSUFFICIENT_FUNDS, "payer has no usable storage-token account", NULL, NULL);
  }
  uint64_t held = get_u64(s->data + TOKEN_ACCOUNT_AMOUNT);
  uint64_t needed;
  if (!amount_to_u64(&p->amount, &needed) || held < needed) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "payer holds ");
    text_u64(&detail, held);
    text_str(&detail, " storage-token units, needs ");
    text_amount(&detail, &p->amount);
    return fail(ERR_INSUFFICIENT_FUNDS, &detail);
  }
  return 0;
}

uint64_t pay_storage(const StoragePayment *p) {
  uint64_t amount;
  if (amount_is_zero(&p->amount) || !amount_to_u64(&p->amount, &amount)) return 0;
  uint8_t data[9];
  data[0] = TOKEN_TRANSFER;
  put_u64(data + 1, amount);
  const CpiAccount accounts[3] = {
      {p->source, false, true}, {p->treasury, false, true}, {p->payer, true, false}};
  const SolBytes bytes = {data, sizeof(data)};
  return invoke(&TOKEN_PROGRAM_ID, accounts, 3, &bytes, NULL);
}
