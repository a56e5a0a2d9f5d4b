#include "invocation.h"

#include "amount.h"
#include "bytes.h"
#include "errors.h"

const SolPubkey SYSTEM_PROGRAM_ID = {{0}};
const SolPubkey TOKEN_PROGRAM_ID = {{
    0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
    0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9,
}};
const SolPubkey ASSOCIATED_TOKEN_PROGRAM_ID = {{
    0x8c, 0x97, 0x25, 0x8f, 0x4e, 0x24, 0x89, 0xf1, 0xbb, 0x3d, 0x10, 0x29, 0x14, 0x8e, 0x0d, 0x83,
    0x0b, 0x5a, 0x13, 0x99, 0xda, 0xff, 0x10, 0x84, 0x04, 0x8e, 0x7b, 0xd8, 0xdb, 0xe9, 0xf8, 0x59,
}};

static const uint8_t CONFIG_SEED[] = "config";
const uint8_t TAPE_SEED[] = "tape";

void seeds_init(Seeds *s) {
  s->count = 0;
  s->bump = 0;
}

void seeds_add(Seeds *s, const uint8_t *addr, uint64_t len) {
  s->seed[s->count].addr = addr;
  s->seed[s->count].len = len;
  s->count++;
}

Account *call_at(Call *c, uint64_t index) { return c->in->accounts[index]; }

bool call_owns(Call *c, const Account *a) { return key_equal(a->owner, c->program_id->x); }

bool account_is_vacant(const Account *a) { return key_is_zero(a->owner) && *a->data_len == 0; }

int64_t call_now(Call *c) {
  if (!c->have_clock) {
    sol_get_clock_sysvar(&c->clock);
    c->have_clock = true;
  }
  return c->clock.unix_timestamp;
}

uint64_t call_minimum_balance(Call *c, uint64_t data_len) {
  if (!c->have_rent) {
    sol_get_rent_sysvar(&c->rent);
    c->have_rent = true;
  }
  /* Solana's Rent::minimum_balance: (128 + len) x lamports per byte-year x threshold (an f64). */
  uint64_t byte_years = (128 + data_len) * c->rent.lamports_per_byte_year;
  return mul_f64_floor(byte_years, c->rent.exemption_threshold_bits);
}

uint64_t call_epoch(Call *c, const ConfigRecord *config) {
  int64_t now = call_now(c);
  if (now <= config->genesis_time || config->epoch_duration_secs == 0) return 0;
  return ((uint64_t)now - (uint64_t)config->genesis_time) / config->epoch_duration_secs;
}

uint64_t call_signer(Call *c, uint64_t index, const char *role, Account **out) {
  Account *a = call_at(c, index);
  if (!a->is_signer) return fail3(ERR_UNAUTHORIZED_SIGNER, role, " must sign", NULL);
  if (out != NULL) *out = a;
  return 0;
}

uint64_t call_writable(Call *c, uint64_t index, const char *role, Account **out) {
  Account *a = call_at(c, index);
  if (!a->is_writable) return fail3(ERR_ACCOUNT_MISMATCH, role, " must be writable", NULL);
  if (out != NULL) *out = a;
  return 0;
}

uint64_t call_wallet(Call *c, uint64_t index, const char *role, Account **out) {
  TRY(call_signer(c, index, role, NULL));
  return call_writable(c, index, role, out);
}

uint64_t call_expect_address(Call *c, uint64_t index, const SolPubkey *expected, const char *role) {
  if (!key_equal(call_at(c, index)->key, expected->x)) {
    return fail3(ERR_ACCOUNT_MISMATCH, "wrong ", role, " account");
  }
  return 0;
}

uint64_t call_expect_pda(Call *c, const Account *a, Seeds *seeds, const char *role) {
  SolPubkey derived;
  uint64_t status = sol_try_find_program_address(seeds->seed, seeds->count, c->program_id, &derived,
                                                 &seeds->bump);
  if (status != 0 || !key_equal(a->key, derived.x)) {
    return fail3(ERR_ACCOUNT_MISMATCH, role, " is not the expected address", NULL);
  }
  return 0;
}

/* Not found (vacant), not ours, or bytes that do not decode: the failure decode_owned reports. */
static uint64_t owned_prefix(Call *c, const Account *a, const char *role) {
  if (account_is_vacant(a)) return fail3(ERR_ACCOUNT_NOT_FOUND, role, " does not exist", NULL);
  if (!call_owns(c, a)) {
    return fail3(ERR_INVALID_ACCOUNT_DATA, role, " is not a tape program account", NULL);
  }
  return 0;
}

static uint64_t layout_failure(const Reader *r, const char *role) {
  Text detail;
  text_clear(&detail);
  text_str(&detail, role);
  text_str(&detail, ": ");
  reader_describe(r, &detail);
  return fail(ERR_INVALID_ACCOUNT_DATA, &detail);
}

uint64_t call_config(Call *c, uint64_t index, ConfigRecord *out) {
  Account *a = call_at(c, index);
  SolSignerSeed seed = {CONFIG_SEED, sizeof(CONFIG_SEED) - 1};
  SolPubkey derived;
  uint8_t bump;
  if (sol_try_find_program_address(&seed, 1, c->program_id, &derived, &bump) != 0 ||
      !key_equal(a->key, derived.x)) {
    return fail3(ERR_ACCOUNT_MISMATCH, "wrong ", "config", " account");
  }
  TRY(owned_prefix(c, a, "config"));
  Reader r;
  decode_config(&r, a->data, *a->data_len, out);
  if (!reader_ok(&r)) return layout_failure(&r, "config");
  return 0;
}

uint64_t call_tape(Call *c, uint64_t index, Account **account, TapeRecord *out) {
  Account *a;
  TRY(call_writable(c, index, "tape", &a));
  TRY(owned_prefix(c, a, "tape"));
  Reader r;
  decode_tape(&r, a->data, *a->data_len, out);
  if (!reader_ok(&r)) return layout_failure(&r, "tape");
  Seeds seeds;
  seeds_init(&seeds);
  seeds_add(&seeds, TAPE_SEED, sizeof(TAPE_SEED) - 1);
  seeds_add(&seeds, out->authority, SOL_PUBKEY_BYTES);
  TRY(call_expect_pda(c, a, &seeds, "tape"));
  *account = a;
  return 0;
}

uint64_t expect_tape_signer(const TapeRecord *tape, const Account *signer) {
  if (key_equal(signer->key, tape->authority)) return 0;
  if (tape->has_delegate && key_equal(signer->key, tape->delegate)) return 0;
  return fail3(ERR_UNAUTHORIZED_SIGNER, "signer is neither the tape authority nor its delegate",
               NULL, NULL);
}

uint64_t expect_active(const TapeRecord *tape, uint64_t current_epoch) {
  if (current_epoch >= tape->expiry_epoch) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "tape expired at epoch ");
    text_u64(&detail, tape->expiry_epoch);
    return fail(ERR_TAPE_EXPIRED, &detail);
  }
  return 0;
}

uint64_t expect_room(const TapeRecord *tape, uint64_t needed, const char *what) {
  if (needed <= tape->capacity) return 0;
  Text detail;
  text_clear(&detail);
  text_str(&detail, "tape has ");
  text_u64(&detail, tape->capacity);
  text_str(&detail, " bytes of capacity, ");
  text_str(&detail, what);
  text_str(&detail, " ");
  text_u64(&detail, needed);
  return fail(ERR_INSUFFICIENT_CAPACITY, &detail);
}

uint64_t checked_add(uint64_t a, uint64_t b, uint64_t max, const char *what, uint64_t *out) {
  if (a > max || b > max - a) return fail3(ERR_INVALID_ARGUMENT, what, " overflows", NULL);
  *out = a + b;
  return 0;
}

uint64_t expect_sequence(const TapeRecord *tape, uint64_t expected, uint64_t *next) {
  if (expected != tape->sequence) {
    Text detail;
    text_clear(&detail);
    text_str(&detail, "tape is at sequence ");
    text_u64(&detail, tape->sequence);
    text_str(&detail, ", not ");
    text_u64(&detail, expected);
    return fail(ERR_VERSION_CONFLICT, &detail);
  }
  return checked_add(tape->sequence, 1, MAX_SAFE_INTEGER, "sequence", next);
}
