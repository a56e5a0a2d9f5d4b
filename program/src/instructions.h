/* The eleven instructions (docs/program.md): each checks everything before its first effect. */
#pragma once

#include "invocation.h"

uint64_t init_config(Call *c, const IxData *d);
uint64_t create_tape(Call *c, const IxData *d);
uint64_t extend_tape(Call *c, const IxData *d);
uint64_t resize_tape(Call *c, const IxData *d);
uint64_t set_delegate(Call *c, const IxData *d);
uint64_t write_track(Call *c, const IxData *d);
uint64_t certify_track(Call *c);
uint64_t release_track(Call *c);
uint64_t set_name(Call *c, const IxData *d);
uint64_t remove_name(Call *c);
uint64_t publish(Call *c, const IxData *d);

/* The outcome of one name fewer pointing at a track, computed while checking. */
typedef struct {
  LoadedTrack track;
  uint64_t refs;
} TrackRelease;

/* Checks the release and updates `tape` (without the track's bytes once it closes). */
uint64_t plan_track_release(TapeRecord *tape, const LoadedTrack *track, TrackRelease *out);
/* The last reference gone, the track is closed: its rent goes to `receiver`. */
void apply_track_release(const TrackRelease *release, Account *receiver);
