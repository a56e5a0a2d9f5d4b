import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../../chain/account-layouts';
import { ChainReader } from '../../chain/chain-reader';
import { currentVersion } from '../../chain/tape-history';
import { commitmentOfBuffer, commitmentToHex } from '../../tracks/commitment';
import { buildVersion } from '../../versions/version-builder';
import { VersionRoot, decodeRoot } from '../../versions/version-nodes';
import { CliError } from '../cli-error';
import { GatewayClient } from '../deploy/gateway-client';
import {
  DownloadedVersion,
  UntrustedVersionError,
  rootFrame,
  verifyVersionDownload,
} from './version-download';
import { GatewayRefusalError, errorOf } from './version-publisher';

/** The tape's current version as the chain names it, with its entries (empty before the first). */
export interface CurrentVersion extends DownloadedVersion {
  /** 0 while the tape has published none. */
  version: number;
  rootCommitment: Buffer;
  record: TapeRecord;
}

/** A 100,000-name version's manifest is about 20 MB. */
const MAX_VERSION_BYTES = 512 * 1024 * 1024;
/** Asked again when the tape moved on between reading its pointer and the answer, or on a 503. */
const TRIES = 5;

/**
 * Reads the tape's current version: its pointer from the chain, its root and nodes from the
 * gateway (`GET /versions/{tape}/{root}`), each checked against the pointer (version-download.ts),
 * so what a publisher plans on is what the chain names whoever answered.
 */
export async function readCurrentVersion(
  chain: ChainReader,
  gateway: GatewayClient,
  tape: PublicKey,
  known?: TapeRecord,
): Promise<CurrentVersion> {
  let record = known ?? (await tapeRecord(chain, tape));
  for (let attempt = 1; ; attempt++) {
    const current = currentVersion(record);
    if (!current) return emptyVersion(record);
    const reply = await gateway.get(versionPath(tape, current.root), {
      maxBytes: MAX_VERSION_BYTES,
    });
    if (reply.status === 200) {
      try {
        const downloaded = await verifyVersionDownload(current.root, reply.body);
        return { ...downloaded, version: record.version, rootCommitment: current.root, record };
      } catch (err) {
        if (err instanceof UntrustedVersionError) throw new CliError(err.message);
        throw err;
      }
    }
    if (attempt >= TRIES || !(await retryable(reply.status, reply.body))) {
      throw refusalOf(`reading version ${record.version}`, reply.status, reply.body);
    }
    record = await tapeRecord(chain, tape);
  }
}

/** The current version's root only (entry count, total size): `tape info`. */
export async function readCurrentRoot(
  gateway: GatewayClient,
  tape: PublicKey,
  record: TapeRecord,
): Promise<VersionRoot | undefined> {
  const current = currentVersion(record);
  return current ? readVersionRoot(gateway, tape, current.root, current.version) : undefined;
}

/** A kept version's root (entry count, total size), checked against its commitment on chain. */
export async function readVersionRoot(
  gateway: GatewayClient,
  tape: PublicKey,
  root: Buffer,
  version: number,
): Promise<VersionRoot> {
  const reply = await gateway.get(versionPath(tape, root), {
    maxBytes: MAX_VERSION_BYTES,
    enough: (soFar) => rootFrame(soFar) !== undefined,
  });
  if (reply.status !== 200) {
    throw refusalOf(`reading version ${version}`, reply.status, reply.body);
  }
  const bytes = rootFrame(reply.body);
  if (bytes === undefined || !commitmentOfBuffer(bytes).commitment.equals(root)) {
    throw new CliError(
      `the gateway's version does not hash to the root on chain (${commitmentToHex(root)})`,
    );
  }
  return decodeRoot(bytes);
}

function versionPath(tape: PublicKey, root: Buffer): string {
  return `versions/${tape.toBase58()}/${commitmentToHex(root)}`;
}

async function tapeRecord(chain: ChainReader, tape: PublicKey): Promise<TapeRecord> {
  const record = await chain.getTape(tape);
  if (!record) throw new CliError(`no tape ${tape.toBase58()} on chain`);
  return record;
}

/** A root no longer kept (the tape moved on twice meanwhile), or a busy gateway: ask again. */
async function retryable(status: number, body: Buffer): Promise<boolean> {
  if (status === 404 && /is not the root/.test(errorOf(body).message ?? '')) return true;
  if (status === 429 || status === 503) {
    await new Promise((r) => setTimeout(r, 500));
    return true;
  }
  return false;
}

function refusalOf(what: string, status: number, body: Buffer): GatewayRefusalError {
  const error = errorOf(body);
  return new GatewayRefusalError(what, status, error.code, error.message);
}

function emptyVersion(record: TapeRecord): CurrentVersion {
  return {
    version: 0,
    rootCommitment: Buffer.alloc(32),
    record,
    root: buildVersion([]).root,
    entries: [],
    settings: Buffer.alloc(0),
    rules: Buffer.alloc(0),
    manifestTracks: new Map(),
  };
}
