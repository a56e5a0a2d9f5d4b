import { Logger } from '@nestjs/common';
import { PeerFailureReason, peerName } from './peer-http';

interface PeerState {
  base: string;
  name: string;
  /** Until then the peer is asked after the others. */
  benchedUntil: number;
}

/**
 * The peer gateways of a reader, in the operator's order, and what each cost: a peer that
 * failed (lied, timed out, was unreachable) is asked after the others for `retryAfterMs`, and
 * every failure is counted by peer and reason (tape_peer_failures_total).
 */
export class PeerSet {
  private readonly peers: PeerState[];
  private readonly failures = new Map<string, number>();
  private readonly logger = new Logger('peers');

  constructor(
    bases: readonly string[],
    private readonly retryAfterMs: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.peers = bases.map((base) => ({ base, name: peerName(base), benchedUntil: 0 }));
  }

  /** Peers to ask, in order: those not benched first (operator order), then the benched. */
  order(): { base: string; name: string }[] {
    const now = this.now();
    return [
      ...this.peers.filter((p) => p.benchedUntil <= now),
      ...this.peers.filter((p) => p.benchedUntil > now),
    ];
  }

  /** Counts a failure; a missing track only counts (the peer may not hold it yet). */
  failed(name: string, reason: PeerFailureReason, track: string, detail: string): void {
    const key = `${name}\n${reason}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
    if (reason === 'missing') return;
    const peer = this.peers.find((p) => p.name === name);
    if (peer) peer.benchedUntil = this.now() + this.retryAfterMs;
    const lie = reason === 'bad_bytes' || reason === 'bad_chunk_list' || reason === 'wrong_length';
    this.logger.warn({
      msg: lie ? 'peer served bad bytes' : 'peer failed',
      peer: name,
      reason,
      track,
      detail,
    });
  }

  report(): { peer: string; reason: string; count: number }[] {
    return [...this.failures].map(([key, count]) => {
      const [peer, reason] = key.split('\n');
      return { peer, reason, count };
    });
  }
}
