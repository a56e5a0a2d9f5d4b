import type { TrackKind } from '../../tracks/track-kind';
import type { SpooledSegment } from './segment-spool-writer';

/** A body received whole and hashed, waiting in the spool to be stored. */
export interface SpooledObject {
  /** The whole object's size. */
  size: number;
  kind: TrackKind;
  /** The track the object name points at: the blob's, or the manifest's. */
  commitment: Buffer;
  segments: SpooledSegment[];
  /** Set for a streamed object (more than one segment). */
  manifestBytes?: Buffer;
}
