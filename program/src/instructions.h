/* The nine instructions (docs/program.md): each checks everything before its first effect. */
#pragma once

#include "invocation.h"

uint64_t init_config(Call *c, const IxData *d);
uint64_t create_tape(Call *c, const IxData *d);
uint64_t extend_tape(Call *c, const IxData *d);
uint64_t resize_tape(Call *c, const IxData *d);
uint64_t set_delegate(Call *c, const IxData *d);
uint64_t publish(Call *c, const IxData *d);
uint64_t set_current(Call *c, const IxData *d);
uint64_t remove_alias(Call *c, const IxData *d);
uint64_t set_keep(Call *c, const IxData *d);

