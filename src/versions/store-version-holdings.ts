import { TrackStore } from '../tracks/track-store';
import { VersionHoldings } from './version-holdings';

/** The certifier's view of the gateway's own track store: verified reads only. */
export class StoreVersionHoldings extends VersionHoldings {
  constructor(private readonly store: TrackStore) {
    super();
  }

  async readTrack(commitment: Buffer, bytes: number): Promise<Buffer> {
    if (bytes === 0) return Buffer.alloc(0);
    const parts: Buffer[] = [];
    for await (const part of this.store.openRange(commitment, bytes, 0, bytes - 1))
      parts.push(part as Buffer);
    return Buffer.concat(parts, bytes);
  }

  async holds(commitment: Buffer, bytes: number): Promise<boolean> {
    if (!(await this.store.has(commitment))) return false;
    // The chunk list is checked against the commitment (and so the length against `bytes`);
    // each chunk is verified again whenever it is served.
    return this.store.readChunkHashes(commitment, bytes).then(
      () => true,
      () => false,
    );
  }
}
