/* Little-endian fields and byte runs: the account and instruction layouts of docs/program.md. */
#pragma once

#include "sol.h"

bool bytes_equal(const uint8_t *a, const uint8_t *b, uint64_t n);
bool key_equal(const SolPubkey *a, const uint8_t *b);
bool key_is_zero(const SolPubkey *a);
void bytes_copy(uint8_t *dst, const uint8_t *src, uint64_t n);
uint64_t get_u16(const uint8_t *p);
uint64_t get_u32(const uint8_t *p);
uint64_t get_u64(const uint8_t *p);
void put_u32(uint8_t *p, uint64_t v);
void put_u64(uint8_t *p, uint64_t v);
uint64_t cstr_len(const char *s);

/* clang may lower large copies to these libc names: serve them with the runtime's syscalls. */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int value, size_t n);
