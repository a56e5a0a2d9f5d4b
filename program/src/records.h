/* The program's accounts and instruction data (docs/program.md, "Accounts" and "Instructions"). */
#pragma once

#include "reader.h"

/* Tags 3 and 4 were the per-file Track and Name records of builds before 1.2.0. */
enum { TAG_CONFIG = 1, TAG_TAPE = 2 };

#define CONFIG_SIZE 154
#define TAPE_SIZE 242

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
  /* The current version (0: none published), its root and bytes; NULL roots are stored as zeros. */
  uint64_t version;
  const uint8_t *root;
  uint64_t version_bytes;
  int64_t published_at;
  /* The version before it, kept for rollback and garbage collection. */
  uint64_t prev_version;
  const uint8_t *prev_root;
  uint64_t prev_version_bytes;
  /* Unique bytes of the kept versions (current and previous). */
  uint64_t kept_bytes;
} TapeRecord;

/* Decoders leave the fault in the reader; pointers point into the account's data. */
void decode_config(Reader *r, const uint8_t *data, uint64_t len, ConfigRecord *out);
void decode_tape(Reader *r, const uint8_t *data, uint64_t len, TapeRecord *out);

/* Encoders write the whole record; a tape with no delegate (or a NULL root) stores zeros in its place. */
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
  IX_COUNT = 11,
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
  /* Publish */
  uint64_t expected_version;
  const uint8_t *root;
  uint64_t version_bytes;
  uint64_t added_bytes;
} IxData;

void decode_ix(Reader *r, const uint8_t *data, uint64_t len, IxData *out);
const char *ix_name(uint64_t tag);
