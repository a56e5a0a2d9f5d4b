/*
 * The tape program (docs/program.md): decode the data, count the accounts, log the
 * instruction's name, run it. Malformed data and missing accounts are Solana's own errors;
 * everything else is a program error (6000-6012) logged by the instruction.
 */
#include "errors.h"
#include "input.h"
#include "instructions.h"

/* Accounts each instruction needs at least (docs/program.md, "Instructions"); the retired tags
   5-9 never decode, so their zeros are never read. */
static const uint8_t REQUIRED_ACCOUNTS[IX_COUNT] = {5, 8, 6, 6, 2, 0, 0, 0, 0, 0, 4, 3, 2, 2};

static uint64_t reject(uint64_t error, const Text *detail) {
  Text line;
  text_clear(&line);
  text_str(&line, "Error: ");
  text_bytes(&line, (const uint8_t *)detail->buf, detail->len);
  text_log(&line);
  return error;
}

static uint64_t run(Call *c, const IxData *d) {
  switch (d->tag) {
    case IX_INIT_CONFIG:
      return init_config(c, d);
    case IX_CREATE_TAPE:
      return create_tape(c, d);
    case IX_EXTEND_TAPE:
      return extend_tape(c, d);
    case IX_RESIZE_TAPE:
      return resize_tape(c, d);
    case IX_SET_DELEGATE:
      return set_delegate(c, d);
    case IX_PUBLISH:
      return publish(c, d);
    case IX_SET_CURRENT:
      return set_current(c, d);
    case IX_REMOVE_ALIAS:
      return remove_alias(c, d);
    case IX_SET_KEEP:
      return set_keep(c, d);
    default:
      return SOL_ERROR_INVALID_INSTRUCTION_DATA;
  }
}

uint64_t entrypoint(uint8_t *input) {
  Input in;
  input_parse(input, &in);
  IxData data;
  Reader r;
  decode_ix(&r, in.data, in.data_len, &data);
  Text text;
  text_clear(&text);
  if (!reader_ok(&r)) {
    reader_describe(&r, &text);
    return reject(SOL_ERROR_INVALID_INSTRUCTION_DATA, &text);
  }
  if (in.account_count < REQUIRED_ACCOUNTS[data.tag]) {
    text_str(&text, ix_name(data.tag));
    text_str(&text, " needs ");
    text_u64(&text, REQUIRED_ACCOUNTS[data.tag]);
    text_str(&text, " accounts");
    return reject(SOL_ERROR_NOT_ENOUGH_ACCOUNT_KEYS, &text);
  }
  text_str(&text, "Instruction: ");
  text_str(&text, ix_name(data.tag));
  text_log(&text);
  Call call = {&in, in.program_id, false, {0, 0, 0, 0, 0}, false, {0, 0, 0}};
  return run(&call, &data);
}
