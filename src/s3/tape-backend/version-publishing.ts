import type { PublicKey } from '@solana/web3.js';
import type { ModuleMetadata, Provider } from '@nestjs/common';

/**
 * Port: publishing a version with the gateway's own keys (certified from its store, Publish with
 * compare-and-swap on the tape's `sequence`), which the upload room implements (`PublishService`).
 * The S3 room may not import another feature room (docs/architecture.md), so the gateway's root
 * wires the implementation in (`s3-version-publishing.ts`).
 */
export abstract class VersionPublishing {
  /** Resolves once the Publish is confirmed; rejects so that `isConflict` says when to re-plan. */
  abstract publishOwn(tape: PublicKey, root: Buffer, expectedSequence: number): Promise<void>;

  /** The lost compare-and-swap (another publisher won): plan again on the new current version. */
  abstract isConflict(error: unknown): boolean;

  /** The owner the track index records bytes staged for the tape's next version under. */
  abstract stagingOwner(tape: PublicKey, latestVersion: number): string;
}

/** What the root hands `tapeS3Options`: the module exporting the port's implementation. */
export interface VersionPublishingWiring {
  imports: NonNullable<ModuleMetadata['imports']>;
  provider: Provider;
}
