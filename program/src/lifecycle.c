#include "lifecycle.h"

#include "bytes.h"
#include "errors.h"

/* System program instruction indices (bincode: u32 LE, then the fields). */
enum { SYSTEM_CREATE_ACCOUNT = 0, SYSTEM_ASSIGN = 1, SYSTEM_TRANSFER = 2, SYSTEM_ALLOCATE = 8 };

#define MAX_CPI_ACCOUNTS 4

uint64_t invoke(const SolPubkey *program, const CpiAccount *accounts, uint64_t count,
                const SolBytes *data, const Seeds *pda) {
  SolAccountMeta metas[MAX_CPI_ACCOUNTS];
  SolAccountInfo infos[MAX_CPI_ACCOUNTS];
  for (uint64_t i = 0; i < count; i++) {
    Account *a = accounts[i].account;
    metas[i].pubkey = a->key;
    metas[i].is_signer = accounts[i].is_signer;
    metas[i].is_writable = accounts[i].is_writable;
    infos[i].key = a->key;
    infos[i].lamports = a->lamports;
    infos[i].data_len = *a->data_len;
    infos[i].data = a->data;
    infos[i].owner = a->owner;
    infos[i].rent_epoch = *a->rent_epoch;
    infos[i].is_signer = a->is_signer;
    infos[i].is_writable = a->is_writable;
    infos[i].executable = a->executable;
  }
  SolInstruction ix = {(SolPubkey *)program, metas, count, (uint8_t *)data->addr, data->len};
  if (pda == NULL) return sol_invoke_signed_c(&ix, infos, (int)count, NULL, 0);
  SolSignerSeed with_bump[MAX_SEEDS + 1];
  for (int i = 0; i < pda->count; i++) with_bump[i] = pda->seed[i];
  with_bump[pda->count].addr = &pda->bump;
  with_bump[pda->count].len = 1;
  SolSignerSeeds signers = {with_bump, (uint64_t)pda->count + 1};
  return sol_invoke_signed_c(&ix, infos, (int)count, &signers, 1);
}

uint64_t rent_shortfall(Call *c, uint64_t space, uint64_t held) {
  uint64_t rent = call_minimum_balance(c, space);
  return rent > held ? rent - held : 0;
}

uint64_t expect_payer_holds(const Account *payer, uint64_t lamports, const char *what) {
  if (*payer->lamports >= lamports) return 0;
  Text detail;
  text_clear(&detail);
  text_str(&detail, "payer holds ");
  text_u64(&detail, *payer->lamports);
  text_str(&detail, " lamports, ");
  text_str(&detail, what);
  text_str(&detail, " needs ");
  text_u64(&detail, lamports);
  return fail(ERR_INSUFFICIENT_FUNDS, &detail);
}

static uint64_t system_transfer(Account *from, Account *to, uint64_t lamports) {
  uint8_t data[12];
  put_u32(data, SYSTEM_TRANSFER);
  put_u64(data + 4, lamports);
  const CpiAccount accounts[2] = {{from, true, true}, {to, false, true}};
  const SolBytes bytes = {data, sizeof(data)};
  return invoke(&SYSTEM_PROGRAM_ID, accounts, 2, &bytes, NULL);
}

uint64_t create_program_account(Call *c, Account *payer, Account *target, uint64_t space,
                                 const Seeds *seeds) {
  uint64_t rent = call_minimum_balance(c, space);
  if (*target->lamports == 0) {
    uint8_t data[52];
    put_u32(data, SYSTEM_CREATE_ACCOUNT);
    put_u64(data + 4, rent);
    put_u64(data + 12, space);
    bytes_copy(data + 20, c->program_id->x, SOL_PUBKEY_BYTES);
    const CpiAccount accounts[2] = {{payer, true, true}, {target, true, true}};
    const SolBytes bytes = {data, sizeof(data)};
    return invoke(&SYSTEM_PROGRAM_ID, accounts, 2, &bytes, seeds);
  }
  /* CreateAccount refuses an address that already holds lamports (anyone may send some). */
  if (*target->lamports < rent) TRY(system_transfer(payer, target, rent - *target->lamports));
  const CpiAccount pda[1] = {{target, true, true}};
  uint8_t allocate[12];
  put_u32(allocate, SYSTEM_ALLOCATE);
  put_u64(allocate + 4, space);
  const SolBytes allocate_bytes = {allocate, sizeof(allocate)};
  TRY(invoke(&SYSTEM_PROGRAM_ID, pda, 1, &allocate_bytes, seeds));
  uint8_t assign[36];
  put_u32(assign, SYSTEM_ASSIGN);
  bytes_copy(assign + 4, c->program_id->x, SOL_PUBKEY_BYTES);
  const SolBytes assign_bytes = {assign, sizeof(assign)};
  return invoke(&SYSTEM_PROGRAM_ID, pda, 1, &assign_bytes, seeds);
}
