import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { ChainReader } from '../../chain/chain-reader';
import { ChainWriter } from '../../chain/chain-writer';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { runBounded } from './bounded-pool';
import { DeployPlan, PlannedFile, PlannedTrack } from './deploy-planner';
import { DeployProgress } from './deploy-progress';
import { InstructionStream } from './instruction-stream';
import { fitsAlone, packInstructions, PackOptions } from '../../chain/transaction-packer';
import { TrackUploader } from './track-uploader';

export interface DeployWriters {
  reader: ChainReader;
  writer: ChainWriter;
  ix: TapeInstructions;
  tape: PublicKey;
  /** Pays fees and rent (the wallet). */
  payer: Keypair;
  /** The tape's keypair or its delegate. */
  signer: Keypair;
  uploader: TrackUploader;
  progress: DeployProgress;
  /** Transactions in flight at once. */
  txConcurrency: number;
}

/** Every instruction of a deploy, built (and checked to fit) before anything is sent. */
export interface DeployTransactions {
  writeBatches: TransactionInstruction[][];
  trackOf: Map<TransactionInstruction, PlannedTrack>;
  /** SetName instructions of the changed files other than the entry, by their track. */
  namesByTrack: Map<PlannedTrack, TransactionInstruction[]>;
  entry: TransactionInstruction | null;
  pruneBatches: TransactionInstruction[][];
  prune: boolean;
  /** Transactions the deploy will send (for the fee estimate). */
  count: number;
}

export function buildDeployTransactions(
  w: Pick<DeployWriters, 'tape' | 'payer' | 'signer'> & {
    ix: TapeInstructions;
    /** `ChainWriter.packing`: the groups made here are then sent one transaction each. */
    packing: PackOptions;
  },
  plan: DeployPlan,
  prune: boolean,
): DeployTransactions {
  const ix = w.ix;
  const payer = w.payer.publicKey;
  const signer = w.signer.publicKey;
  const trackOf = new Map<TransactionInstruction, PlannedTrack>();
  const writes = plan.toWrite.map((t) => {
    const instruction = ix.writeTrack({
      payer,
      signer,
      tape: w.tape,
      commitment: t.commitment,
      size: t.size,
      kind: t.kind,
      contentType: t.contentType,
    });
    trackOf.set(instruction, t);
    return instruction;
  });
  const setName = (file: PlannedFile) => {
    const instruction = ix.setName({
      payer,
      signer,
      tape: w.tape,
      name: file.name,
      track: file.track!.address,
      contentType: file.contentType,
      previousTrack: file.current?.track,
    });
    // A name near the 1024-byte limit can make SetName alone bigger than a transaction.
    if (!fitsAlone(instruction, payer, w.packing)) {
      throw new CliError(
        `name too long to publish in one transaction: ${printable(file.name)} (${Buffer.byteLength(file.name)} bytes); nothing was uploaded`,
      );
    }
    return instruction;
  };
  const namesByTrack = new Map<PlannedTrack, TransactionInstruction[]>();
  const names: TransactionInstruction[] = [];
  for (const file of plan.publish) {
    const instruction = setName(file);
    names.push(instruction);
    const list = namesByTrack.get(file.track!) ?? [];
    list.push(instruction);
    namesByTrack.set(file.track!, list);
  }
  const entry = plan.entry ? setName(plan.entry) : null;
  const removals = prune
    ? plan.stale.map((n) =>
        ix.removeName({ receiver: payer, signer, tape: w.tape, name: n.name, track: n.track }),
      )
    : [];
  const pack = (instructions: TransactionInstruction[]) =>
    packInstructions(instructions, payer, w.packing).map((t) => t.instructions);
  const writeBatches = pack(writes);
  const pruneBatches = pack(removals);
  return {
    writeBatches,
    trackOf,
    namesByTrack,
    entry,
    pruneBatches,
    prune,
    count: writeBatches.length + pack(names).length + (entry ? 1 : 0) + pruneBatches.length,
  };
}

/**
 * Runs a deploy so that an interruption at any point leaves the site as it was or with only
 * confirmed files changed, and every step can simply be repeated by the next deploy:
 *
 * 1. WriteTrack for new tracks (idempotent), many transactions in flight; each track's upload
 *    starts as soon as its transaction is confirmed.
 * 2. SetName for each changed file but the entry, as soon as its track is certified, packed
 *    with the others that are ready at the same moment.
 * 3. SetName for `index.html`, alone and last, once every other name is confirmed: the new
 *    version of the site goes live at once.
 * 4. With `--prune`: RemoveName for names the site no longer has, then ReleaseTrack for tracks
 *    no name points at (left by interrupted deploys).
 */
export async function executeDeploy(
  w: DeployWriters,
  plan: DeployPlan,
  txs: DeployTransactions,
): Promise<{ pruned: number; released: number }> {
  const signers = w.signer.publicKey.equals(w.payer.publicKey) ? [w.payer] : [w.payer, w.signer];
  const send = (batch: TransactionInstruction[]) => w.writer.send(batch, signers);
  const names = new InstructionStream(send, w.payer.publicKey, w.writer.packing, w.txConcurrency);
  const publish = (track: PlannedTrack) =>
    txs.namesByTrack.get(track)?.forEach((i) => names.push(i));
  let failure: { error: unknown } | undefined;
  const uploads: Promise<void>[] = [];
  const labels = new Map<PlannedTrack, string>();
  for (const file of plan.files) {
    if (file.track && !labels.has(file.track)) labels.set(file.track, file.name);
  }
  const startUpload = (track: PlannedTrack) => {
    if (failure || names.failed) return;
    const label = labels.get(track) ?? track.commitmentHex;
    uploads.push(
      w.uploader.upload(track, label).then(
        () => {
          w.progress.trackUploaded(label);
          publish(track);
        },
        (error: unknown) => {
          failure ??= { error };
        },
      ),
    );
  };

  w.progress.startUploads(
    plan.toUpload.length,
    plan.toUpload.reduce((sum, t) => sum + t.size, 0),
  );
  // Tracks already certified (same bytes under a new name, or a resumed deploy): name them now.
  for (const track of txs.namesByTrack.keys()) if (track.certified) publish(track);
  for (const track of plan.toUpload) if (track.exists) startUpload(track);
  try {
    await runBounded(txs.writeBatches.length, w.txConcurrency, async (i) => {
      if (failure) throw failure.error;
      await send(txs.writeBatches[i]);
      for (const instruction of txs.writeBatches[i]) {
        const track = txs.trackOf.get(instruction);
        if (track && !track.certified) startUpload(track);
      }
    });
  } catch (error) {
    failure ??= { error };
  }
  // Uploads never reject (their errors land in `failure`), so this waits for every one.
  await Promise.all(uploads);
  w.progress.endUploads();
  // Names already sent stay (they are confirmed, complete files); the entry is not published.
  const named = names.close();
  if (failure) {
    await named.catch(() => undefined);
    throw failure.error;
  }
  await named;
  if (txs.entry) await send([txs.entry]);
  if (plan.publish.length > 0 || txs.entry) {
    w.progress.step(`published ${plan.publish.length + (txs.entry ? 1 : 0)} names`);
  }
  if (!txs.prune) return { pruned: 0, released: 0 };
  return prune(w, txs, send, plan.stale.length);
}

async function prune(
  w: DeployWriters,
  txs: DeployTransactions,
  send: (batch: TransactionInstruction[]) => Promise<string[]>,
  staleCount: number,
): Promise<{ pruned: number; released: number }> {
  await runBounded(txs.pruneBatches.length, w.txConcurrency, (i) =>
    send(txs.pruneBatches[i]).then(() => undefined),
  );
  const orphans = (await w.reader.listTracks(w.tape)).filter((t) => t.refs === 0);
  const releases = orphans.map((t) =>
    w.ix.releaseTrack({
      receiver: w.payer.publicKey,
      signer: w.signer.publicKey,
      tape: w.tape,
      track: t.address,
    }),
  );
  const batches = packInstructions(releases, w.payer.publicKey, w.writer.packing).map(
    (t) => t.instructions,
  );
  await runBounded(batches.length, w.txConcurrency, (i) => send(batches[i]).then(() => undefined));
  if (staleCount > 0 || orphans.length > 0) {
    w.progress.step(
      `pruned ${staleCount} stale ${staleCount === 1 ? 'name' : 'names'}` +
        (orphans.length > 0 ? `, released ${orphans.length} unused tracks` : ''),
    );
  }
  return { pruned: staleCount, released: orphans.length };
}
