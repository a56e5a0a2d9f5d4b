import { Connection, PublicKey } from '@solana/web3.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentVersion as currentOf } from '../../../src/chain/tape-history';
import { decodeTape, TapeRecord } from '../../../src/chain/account-layouts';
import { FileTrackStore } from '../../../src/tracks/file-track-store';
import { StoreVersionNodes } from '../../../src/versions/store-version-nodes';
import { VersionEntry } from '../../../src/versions/version-entry';

/** A tape's current version as the chain names it and a gateway's store holds it. */
export interface VersionView {
  record: TapeRecord;
  /** In name order; empty at version 0. */
  entries: VersionEntry[];
}

/**
 * Reads a tape's pointer from the chain and its version's entries from a gateway's track store
 * (verified reads, the same reader the gateway uses): what an S3 write left, with no CLI.
 */
export async function currentVersion(
  gw: { rpcUrl: string; dataDir: string },
  tape: string,
): Promise<VersionView> {
  const info = await new Connection(gw.rpcUrl, 'confirmed').getAccountInfo(new PublicKey(tape));
  if (!info) throw new Error(`no tape ${tape}`);
  const record = decodeTape(info.data);
  if (record.version === 0) return { record, entries: [] };
  // A reference index of our own: the gateway's is its to write.
  const index = mkdtempSync(join(tmpdir(), 'tape-view-'));
  const store = new FileTrackStore(join(gw.dataDir, 'tracks'), {
    indexPath: join(index, 'refs.sqlite'),
  });
  try {
    const nodes = new StoreVersionNodes(store);
    const entries: VersionEntry[] = [];
    const root = await nodes.root(currentOf(record)!.root);
    for await (const e of nodes.reader().entries(root)) entries.push(e);
    return { record, entries };
  } finally {
    rmSync(index, { recursive: true, force: true });
  }
}
