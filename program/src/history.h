/*
 * A tape's version history and aliases (docs/program.md, "Accounts"): the tables sit in the
 * tape account's data and are edited there, after every check of the instruction passed. The
 * kept set is the current version, every aliased one and the `keep` highest numbers; whatever
 * else the history holds is evicted after every change.
 */
#pragma once

#include "records.h"

/* The entry of version `version`, if the history holds it. */
bool history_find(const uint8_t *data, const TapeRecord *t, uint64_t version, uint64_t *index);
typedef struct {
  uint64_t version;
  const uint8_t *root;
  uint64_t bytes;
  int64_t published_at;
} KeptVersion;

/* Appends an entry (the caller checked its number is above every other: the table stays sorted). */
void history_append(uint8_t *data, TapeRecord *t, const KeptVersion *v);
/* Drops the entries outside the kept set, keeping the order; zeros the freed slots. */
void history_evict(uint8_t *data, TapeRecord *t);

/* 1..24 bytes of [a-z0-9-], alphanumeric at both ends, no "--", not v<digits>. */
bool alias_name_valid(const uint8_t *name, uint64_t len);
bool alias_find(const uint8_t *data, const TapeRecord *t, const uint8_t *name, uint64_t len,
                uint64_t *index);
/* Points the alias at `version`, adding it when new (the caller checked there is room). */
void alias_set(uint8_t *data, TapeRecord *t, const uint8_t *name, uint64_t len, uint64_t version);
/* Removes alias `index`; the later ones move down a slot. */
void alias_remove(uint8_t *data, TapeRecord *t, uint64_t index);
