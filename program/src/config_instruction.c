#include "bytes.h"
#include "errors.h"
#include "instructions.h"
#include "lifecycle.h"

#define MINT_SIZE 82
#define MINT_IS_INITIALIZED 45
#define TOKEN_ACCOUNT_SIZE 165
#define TOKEN_ACCOUNT_STATE 108

static const uint8_t CONFIG_SEED[] = "config";

static bool is_initialized_mint(const Account *a) {
  return key_equal(a->owner, TOKEN_PROGRAM_ID.x) && *a->data_len == MINT_SIZE &&
         a->data[MINT_IS_INITIALIZED] == 1;
}

static bool is_token_account_of(const Account *a, const SolPubkey *mint) {
  return key_equal(a->owner, TOKEN_PROGRAM_ID.x) && *a->data_len == TOKEN_ACCOUNT_SIZE &&
         key_equal(mint, a->data) && a->data[TOKEN_ACCOUNT_STATE] == 1;
}

/* Accounts: admin s w, config w, mint, treasury, system. */
uint64_t init_config(Call *c, const IxData *d) {
  Account *admin, *config;
  TRY(call_wallet(c, 0, "admin", &admin));
  TRY(call_writable(c, 1, "config", &config));
  Account *mint = call_at(c, 2);
  Account *treasury = call_at(c, 3);
  TRY(call_expect_address(c, 4, &SYSTEM_PROGRAM_ID, "system program"));
  Seeds seeds;
  seeds_init(&seeds);
  seeds_add(&seeds, CONFIG_SEED, sizeof(CONFIG_SEED) - 1);
  TRY(call_expect_pda(c, config, &seeds, "config"));
  if (!is_initialized_mint(mint)) {
    return fail3(ERR_INVALID_ACCOUNT_DATA, "mint is not an initialized SPL mint", NULL, NULL);
  }
  if (!is_token_account_of(treasury, mint->key)) {
    return fail3(ERR_INVALID_ACCOUNT_DATA, "treasury is not a token account of the mint", NULL, NULL);
  }

  if (d->epoch_duration_secs < 1) {
    return fail3(ERR_INVALID_ARGUMENT, "epoch duration must be >= 1 s", NULL, NULL);
  }
  if (call_owns(c, config)) return fail3(ERR_ALREADY_EXISTS, "config already initialized", NULL, NULL);
  if (!account_is_vacant(config)) {
    return fail3(ERR_INVALID_ACCOUNT_DATA, "config address is in use", NULL, NULL);
  }
  TRY(expect_payer_holds(admin, rent_shortfall(c, CONFIG_SIZE, *config->lamports), "config rent"));

  TRY(create_program_account(c, admin, config, CONFIG_SIZE, &seeds));
  ConfigRecord record = {
      d->epoch_duration_secs,
      d->genesis_time,
      d->price_per_mib_epoch,
      mint->key->x,
      treasury->key->x,
      d->storage_authority,
      admin->key->x,
  };
  encode_config(config->data, &record);
  return 0;
}
