import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { Readable } from 'node:stream';
import type { TapeRecord } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { parseAddress } from '../chain/tape-label';
import { commitmentFromHex, isCommitmentHex } from '../tracks/commitment';
import { TrackStore } from '../tracks/track-store';
import { StoreVersionHoldings } from '../versions/store-version-holdings';
import { VersionRoot } from '../versions/version-nodes';
import { VersionNodeSource, VersionReader } from '../versions/version-reader';
import { chainRead } from './tape-writer-access';
import { uploadErrors } from './upload-error';

/** `GET /versions/{tape}/{root}`'s answer: the version number the root has on chain, and the bytes. */
export interface VersionDownload {
  version: number;
  body: Readable;
}

/**
 * A kept version's manifest as one download (docs/versions.md, "Routes"): the root, then every
 * node below the tops, each as `u32le length, bytes`. A publisher (`tape deploy`, `tape object`)
 * plans its next version on the current one from it. Nothing here is trusted by the client: it
 * checks the root against the tape's pointer and every node against the branch that names it.
 * Only the roots of the tape's kept versions are served, so the route cannot be used to probe
 * the store for any other tracks.
 */
@Injectable()
export class VersionDownloadService {
  constructor(
    private readonly chain: ChainReader,
    private readonly store: TrackStore,
  ) {}

  async open(tapeText: string, rootHex: string): Promise<VersionDownload> {
    const parsed = parseAddress(tapeText);
    if (!parsed) throw uploadErrors.badRequest('malformed tape address');
    if (!isCommitmentHex(rootHex)) {
      throw uploadErrors.badRequest('the root must be 64 lowercase hex digits');
    }
    const tape = await chainRead(() => this.chain.getTape(new PublicKey(parsed)));
    if (!tape) throw uploadErrors.notFound('no such tape on chain');
    const root = commitmentFromHex(rootHex);
    const version = keptVersionOf(tape, root);
    if (version === undefined) {
      throw uploadErrors.notFound(`${rootHex} is not the root of a version the tape keeps`);
    }
    // The root's length is not on chain; the stored one is bound by the commitment (a wrong
    // length fails the verified read).
    const bytes = await this.store.storedSize(root);
    if (bytes === undefined) {
      throw uploadErrors.unavailable(
        `version ${version}'s root is not held by this gateway's store`,
      );
    }
    const source = new EmittingSource(new StoreVersionHoldings(this.store));
    const reader = new VersionReader(source);
    // Read before answering, so a root that does not verify is an error status, not a cut body.
    const node = await reader.root(root, bytes);
    return { version, body: Readable.from(frames(reader, node, source), { objectMode: false }) };
  }
}

/**
 * The version a root is in the tape's history (its kept versions: current, aliased, newest
 * `keep`), if any; the newest when two kept versions share a root.
 */
export function keptVersionOf(tape: Pick<TapeRecord, 'history'>, root: Buffer): number | undefined {
  for (let i = tape.history.length - 1; i >= 0; i--) {
    if (tape.history[i].root.equals(root)) return tape.history[i].version;
  }
  return undefined;
}

/** Verified reads of the store that also hand each node's bytes to the download, once. */
class EmittingSource extends VersionNodeSource {
  private pending: Buffer[] = [];

  constructor(private readonly holdings: StoreVersionHoldings) {
    super();
  }

  async read(commitment: Buffer, bytes: number): Promise<Buffer> {
    const read = await this.holdings.readTrack(commitment, bytes);
    this.pending.push(read);
    return read;
  }

  take(): Buffer[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

/**
 * The root, then each node as the reader's walk reads it (names tree, then commits tree, depth
 * first): a reader without a cache reads each node once, and checks it against its branch.
 */
async function* frames(
  reader: VersionReader,
  root: VersionRoot,
  source: EmittingSource,
): AsyncGenerator<Buffer> {
  yield* framed(source.take());
  for await (const _node of reader.nodes(root)) yield* framed(source.take());
  yield* framed(source.take());
}

function* framed(parts: Buffer[]): Generator<Buffer> {
  for (const part of parts) {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(part.length);
    yield length;
    yield part;
  }
}
