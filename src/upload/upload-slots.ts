import { Injectable } from '@nestjs/common';
import { StorageConfig } from '../config/storage.config';
import { SlotRefusal, SlotScope, UploadSlotsFullError } from './upload-error';

/**
 * Uploads in progress per client and per tape (`storage.uploads.*`). An upload holds one slot
 * of each from before its body is read until it ends, fails or is aborted, so a client that
 * opens many slow uploads can hold at most `max_per_client` sockets and temporary files here.
 * Counts are per process: each gateway behind a balancer enforces its own.
 */
@Injectable()
export class UploadSlots {
  private readonly held: Record<SlotScope, Map<string, number>> = {
    client: new Map(),
    tape: new Map(),
  };
  private refused = { client: 0, tape: 0 };

  constructor(private readonly storage: StorageConfig) {}

  /** A release function (idempotent), or the refusal when the scope's key is at its limit. */
  acquire(scope: SlotScope, key: string): (() => void) | SlotRefusal {
    const limit = this.limitOf(scope);
    const map = this.held[scope];
    const count = map.get(key) ?? 0;
    if (count >= limit) {
      this.refused[scope]++;
      return { scope, limit };
    }
    map.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (map.get(key) ?? 1) - 1;
      if (left <= 0) map.delete(key);
      else map.set(key, left);
    };
  }

  /**
   * Runs `work` holding a client slot, and a tape slot once `work` names its tape through
   * `holdTape` (before it reads any body byte); every slot is given back when it ends.
   */
  async holding<T>(
    client: string,
    work: (holdTape: (tape: string) => void) => Promise<T>,
  ): Promise<T> {
    const releases: (() => void)[] = [];
    const hold = (scope: SlotScope, key: string) => {
      const slot = this.acquire(scope, key);
      if (typeof slot !== 'function') throw new UploadSlotsFullError(slot);
      releases.push(slot);
    };
    try {
      hold('client', client);
      return await work((tape) => hold('tape', tape));
    } finally {
      for (const release of releases) release();
    }
  }

  stats() {
    return {
      clients: this.held.client.size,
      tapes: this.held.tape.size,
      inProgress: [...this.held.client.values()].reduce((a, b) => a + b, 0),
      refused: { ...this.refused },
    };
  }

  private limitOf(scope: SlotScope): number {
    return scope === 'client'
      ? this.storage.uploads.max_per_client
      : this.storage.uploads.max_per_tape;
  }
}
