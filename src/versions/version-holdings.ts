/**
 * What the certifier asks of the gateway's storage (docs/versions.md, "The pointer and Publish"),
 * behind one port so the rules can be tested without a store. Production: StoreVersionHoldings.
 */
export abstract class VersionHoldings {
  /** A whole track of this length, verified against its commitment; rejects when not held. */
  abstract readTrack(commitment: Buffer, bytes: number): Promise<Buffer>;

  /** Whether the track is held whole with a chunk list that matches its commitment. */
  abstract holds(commitment: Buffer, bytes: number): Promise<boolean>;
}
