/* The program's accounts and instruction data (docs/program.md, "Accounts" and "Instructions"). */
#pragma once

#include "reader.h"

enum { TAG_CONFIG = 1, TAG_TAPE = 2, TAG_TRACK = 3, TAG_NAME = 4 };

#define CONFIG_SIZE 154
#define TAPE_SIZE 258
#define TRACK_FIXED_SIZE 88
#define NAME_FIXED_SIZE 117
#define MAX_NAME_BYTES 1024
#define MAX_NAME_METADATA_BYTES 1024
#define MAX_U32 ((uint64_t)0xffffffff)

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
  uint64_t used;
  uint64_t active_epoch;
  uint64_t expiry_epoch;
  int64_t created_at;
  uint64_t name_count;
  uint64_t track_count;
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

typedef struct {
  const uint8_t *tape;
  const uint8_t *commitment;
  uint64_t size;
  uint64_t kind;
  bool certified;
  uint64_t refs;
  int64_t created_at;
  const uint8_t *content_type;
  uint64_t content_type_len;
} TrackRecord;

typedef struct {
  const uint8_t *tape;
  const uint8_t *track;
  const uint8_t *commitment;
  uint64_t size;
  uint64_t kind;
  int64_t updated_at;
  const uint8_t *content_type;
  uint64_t content_type_len;
  const uint8_t *name;
  uint64_t name_len;
  /* Opaque bytes after the name (a u16 length, then the bytes); none when metadata_len is 0. */
  const uint8_t *metadata;
  uint64_t metadata_len;
} NameRecord;

/* Decoders leave the fault in the reader; pointers point into the account's data. */
void decode_config(Reader *r, const uint8_t *data, uint64_t len, ConfigRecord *out);
void decode_tape(Reader *r, const uint8_t *data, uint64_t len, TapeRecord *out);
void decode_track(Reader *r, const uint8_t *data, uint64_t len, TrackRecord *out);
void decode_name(Reader *r, const uint8_t *data, uint64_t len, NameRecord *out);

/* Encoders write the whole record; a tape with no delegate (or a NULL root) stores zeros in its place. */
void encode_config(uint8_t *out, const ConfigRecord *c);
void encode_tape(uint8_t *out, const TapeRecord *t);
/* The track's fixed part only: its content type is written once, when it is created. */
void encode_track_fixed(uint8_t *out, const TrackRecord *t);
uint64_t encode_name(uint8_t *out, const NameRecord *n);

enum {
  IX_INIT_CONFIG = 0,
  IX_CREATE_TAPE = 1,
  IX_EXTEND_TAPE = 2,
  IX_RESIZE_TAPE = 3,
  IX_SET_DELEGATE = 4,
  IX_WRITE_TRACK = 5,
  IX_SET_NAME = 6,
  IX_CERTIFY_TRACK = 7,
  IX_REMOVE_NAME = 8,
  IX_RELEASE_TRACK = 9,
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
  /* WriteTrack, SetName */
  const uint8_t *commitment;
  uint64_t size;
  uint64_t kind;
  const uint8_t *content_type;
  uint64_t content_type_len;
  const uint8_t *name;
  uint64_t name_len;
  /* SetName's optional tail */
  const uint8_t *metadata;
  uint64_t metadata_len;
  /* Publish */
  uint64_t expected_version;
  const uint8_t *root;
  uint64_t version_bytes;
  uint64_t added_bytes;
} IxData;

void decode_ix(Reader *r, const uint8_t *data, uint64_t len, IxData *out);
const char *ix_name(uint64_t tag);
