/* The program's accounts and instruction data (docs/program.md, "Accounts" and "Instructions"). */
#pragma once

#include "reader.h"

/* Tags 3 and 4 were the per-file Track and Name records of builds before 1.2.0. */
enum { TAG_CONFIG = 1, TAG_TAPE = 2 };

#define CONFIG_SIZE 154
/* The tape record: 164 bytes of fields, a history table of 32 entries of 56 bytes (version,
   root, bytes, published_at), alias_count, then 8 aliases of 33 bytes (len, name, version). */
#define HISTORY_SLOTS 32
#define HISTORY_ENTRY 56
#define ALIAS_SLOTS 8
#define ALIAS_NAME_MAX 24
#define ALIAS_ENTRY 33
#define KEEP_MAX 16
#define DEFAULT_KEEP 10
#define TAPE_HISTORY_OFFSET 164
#define TAPE_ALIAS_COUNT_OFFSET (TAPE_HISTORY_OFFSET + HISTORY_SLOTS * HISTORY_ENTRY)
#define TAPE_ALIASES_OFFSET (TAPE_ALIAS_COUNT_OFFSET + 1)
#define TAPE_SIZE (TAPE_ALIASES_OFFSET + ALIAS_SLOTS * ALIAS_ENTRY)

typedef struct {
  uint64_t epoch_duration_secs;
  int64_t genesis_time;
  uint64_t price_per_mib_epoch;
  const uint8_t *mint;
  const uint8_t *treasury;
  const uint8_t *storage_authority;
  const uint8_t *admin;
} ConfigRecord;

typedef struct {
  const uint8_t *authority;
  bool has_delegate;
  const uint8_t *delegate;
  uint64_t capacity;
  uint64_t active_epoch;
  uint64_t expiry_epoch;
  int64_t created_at;
  /* Who paid the tape's rent at CreateTape: the only account rent may ever go back to. */
  const uint8_t *payer;
  /* The current version (0: none published), always in the history table when not 0. */
  uint64_t version;
  /* The highest version number ever published: the next Publish makes latest_version + 1. */
  uint64_t latest_version;
  /* +1 on every change of current, history, aliases or keep: the compare-and-swap counter. */
  uint64_t sequence;
  /* Unique bytes of the kept versions, as certified at the last Publish. */
  uint64_t kept_bytes;
  uint64_t keep;
  /* Entries used in the tables, which stay in the account's data (history.h edits them there). */
  uint64_t history_len;
  uint64_t alias_count;
} TapeRecord;

/* Decoders leave the fault in the reader; pointers point into the account's data. */
void decode_config(Reader *r, const uint8_t *data, uint64_t len, ConfigRecord *out);
void decode_tape(Reader *r, const uint8_t *data, uint64_t len, TapeRecord *out);

/* encode_config writes the whole record; encode_tape its fields and the two counts, not the
   tables (history.h). A tape with no delegate stores zeros in its place. */
void encode_config(uint8_t *out, const ConfigRecord *c);
void encode_tape(uint8_t *out, const TapeRecord *t);

enum {
  IX_INIT_CONFIG = 0,
  IX_CREATE_TAPE = 1,
  IX_EXTEND_TAPE = 2,
  IX_RESIZE_TAPE = 3,
  IX_SET_DELEGATE = 4,
  /* 5-9 were the per-file WriteTrack, SetName, CertifyTrack, RemoveName and ReleaseTrack: refused
     as unknown tags since 1.2.0, never reused. */
  IX_PUBLISH = 10,
  IX_SET_CURRENT = 11,
  IX_REMOVE_ALIAS = 12,
  IX_SET_KEEP = 13,
  IX_COUNT = 14,
};

typedef struct {
  uint64_t tag;
  /* InitConfig */
  uint64_t epoch_duration_secs;
  int64_t genesis_time;
  uint64_t price_per_mib_epoch;
  const uint8_t *storage_authority;
  /* CreateTape, ExtendTape, ResizeTape */
  uint64_t capacity;
  uint64_t epochs;
  uint64_t add_bytes;
  /* SetDelegate */
  bool has_delegate;
  const uint8_t *delegate;
  /* Publish, SetCurrent, RemoveAlias, SetKeep: the tape's sequence they were made against */
  uint64_t expected_sequence;
  /* Publish */
  const uint8_t *root;
  uint64_t version_bytes;
  uint64_t kept_bytes;
  /* Publish (0: live), RemoveAlias: the name's length and its 24-byte field */
  uint64_t alias_len;
  const uint8_t *alias;
  /* SetCurrent */
  uint64_t version;
  /* SetKeep */
  uint64_t keep;
} IxData;

void decode_ix(Reader *r, const uint8_t *data, uint64_t len, IxData *out);
const char *ix_name(uint64_t tag);
