#include "history.h"

#include "bytes.h"

static uint8_t *history_at(uint8_t *data, uint64_t i) {
  return data + TAPE_HISTORY_OFFSET + i * HISTORY_ENTRY;
}

static const uint8_t *alias_at(const uint8_t *data, uint64_t i) {
  return data + TAPE_ALIASES_OFFSET + i * ALIAS_ENTRY;
}

bool history_find(const uint8_t *data, const TapeRecord *t, uint64_t version, uint64_t *index) {
  for (uint64_t i = 0; i < t->history_len; i++) {
    if (get_u64(data + TAPE_HISTORY_OFFSET + i * HISTORY_ENTRY) == version) {
      *index = i;
      return true;
    }
  }
  return false;
}

void history_append(uint8_t *data, TapeRecord *t, const KeptVersion *v) {
  uint8_t *entry = history_at(data, t->history_len);
  put_u64(entry, v->version);
  bytes_copy(entry + 8, v->root, 32);
  put_u64(entry + 40, v->bytes);
  put_u64(entry + 48, (uint64_t)v->published_at);
  t->history_len++;
}

void history_evict(uint8_t *data, TapeRecord *t) {
  /* The aliased versions, read once (each entry is checked against all of them). */
  uint64_t aliased[ALIAS_SLOTS];
  for (uint64_t a = 0; a < t->alias_count; a++) {
    aliased[a] = get_u64(alias_at(data, a) + 1 + ALIAS_NAME_MAX);
  }
  uint64_t kept = 0;
  for (uint64_t i = 0; i < t->history_len; i++) {
    uint64_t version = get_u64(history_at(data, i));
    /* Sorted ascending: the `keep` highest numbers are the last `keep` entries. */
    bool keep = version == t->version || i + t->keep >= t->history_len;
    for (uint64_t a = 0; !keep && a < t->alias_count; a++) keep = aliased[a] == version;
    if (!keep) continue;
    /* Entries are HISTORY_ENTRY apart: a copy down never overlaps. */
    if (kept != i) bytes_copy(history_at(data, kept), history_at(data, i), HISTORY_ENTRY);
    kept++;
  }
  if (kept < t->history_len) {
    sol_memset_(history_at(data, kept), 0, (t->history_len - kept) * HISTORY_ENTRY);
  }
  t->history_len = kept;
}

static bool alphanumeric(uint8_t c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool alias_name_valid(const uint8_t *name, uint64_t len) {
  if (len < 1 || len > ALIAS_NAME_MAX) return false;
  if (!alphanumeric(name[0]) || !alphanumeric(name[len - 1])) return false;
  bool digits_after_v = name[0] == 'v' && len > 1;
  for (uint64_t i = 0; i < len; i++) {
    uint8_t c = name[i];
    if (!alphanumeric(c) && c != '-') return false;
    if (c == '-' && i + 1 < len && name[i + 1] == '-') return false;
    if (i > 0 && !(c >= '0' && c <= '9')) digits_after_v = false;
  }
  /* v<digits> is the pinned-version host spelling (v<n>--<label>). */
  return !digits_after_v;
}

bool alias_find(const uint8_t *data, const TapeRecord *t, const uint8_t *name, uint64_t len,
                uint64_t *index) {
  for (uint64_t i = 0; i < t->alias_count; i++) {
    const uint8_t *entry = alias_at(data, i);
    if (entry[0] == len && bytes_equal(entry + 1, name, len)) {
      *index = i;
      return true;
    }
  }
  return false;
}

void alias_set(uint8_t *data, TapeRecord *t, const uint8_t *name, uint64_t len, uint64_t version) {
  uint64_t i;
  if (!alias_find(data, t, name, len, &i)) {
    i = t->alias_count++;
    uint8_t *entry = data + TAPE_ALIASES_OFFSET + i * ALIAS_ENTRY;
    entry[0] = (uint8_t)len;
    /* The name from the instruction's field, without whatever follows it there. */
    sol_memset_(entry + 1, 0, ALIAS_NAME_MAX);
    bytes_copy(entry + 1, name, len);
  }
  put_u64(data + TAPE_ALIASES_OFFSET + i * ALIAS_ENTRY + 1 + ALIAS_NAME_MAX, version);
}

void alias_remove(uint8_t *data, TapeRecord *t, uint64_t index) {
  uint8_t *base = data + TAPE_ALIASES_OFFSET;
  for (uint64_t i = index; i + 1 < t->alias_count; i++) {
    bytes_copy(base + i * ALIAS_ENTRY, base + (i + 1) * ALIAS_ENTRY, ALIAS_ENTRY);
  }
  t->alias_count--;
  sol_memset_(base + t->alias_count * ALIAS_ENTRY, 0, ALIAS_ENTRY);
}
