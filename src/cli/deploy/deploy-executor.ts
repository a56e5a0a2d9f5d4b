import { Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { ChainService } from '../../chain/chain.service';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { runBounded } from './bounded-pool';
import { DeployPlan, PlannedFile, PlannedTrack } from './deploy-planner';
import { DeployProgress } from './deploy-progress';
import { fitsAlone, packFast } from './transaction-budget';
import { TrackUploader } from './track-uploader';

export interface DeployWriters {
  chain: ChainService;
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

/** Every transaction of a deploy, built and packed before anything is sent. */
export interface DeployTransactions {
  writeBatches: TransactionInstruction[][];
  nameBatches: TransactionInstruction[][];
  entry: TransactionInstruction | null;
  pruneBatches: TransactionInstruction[][];
  trackOf: Map<TransactionInstruction, PlannedTrack>;
  prune: boolean;
  count: number;
}

export function buildDeployTransactions(
  w: Pick<DeployWriters, 'chain' | 'tape' | 'payer' | 'signer'>,
  plan: DeployPlan,
  prune: boolean,
): DeployTransactions {
  const ix = w.chain.ix;
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
    if (!fitsAlone(instruction, payer)) {
      throw new CliError(
        `name too long to publish in one transaction: ${printable(file.name)} (${Buffer.byteLength(file.name)} bytes); nothing was uploaded`,
      );
    }
    return instruction;
  };
  const names = plan.publish.map(setName);
  const entry = plan.entry ? setName(plan.entry) : null;
  const removals = prune
    ? plan.stale.map((n) =>
        ix.removeName({ receiver: payer, signer, tape: w.tape, name: n.name, track: n.track }),
      )
    : [];
  const writeBatches = packFast(writes, payer);
  const nameBatches = packFast(names, payer);
  const pruneBatches = packFast(removals, payer);
  return {
    writeBatches,
    nameBatches,
    entry,
    pruneBatches,
    trackOf,
    prune,
    count: writeBatches.length + nameBatches.length + (entry ? 1 : 0) + pruneBatches.length,
  };
}

/**
 * Runs a deploy so that an interruption at any point leaves the site as it was or with only
 * confirmed files changed, and every step can simply be repeated by the next deploy:
 *
 * 1. WriteTrack for new tracks (idempotent), many transactions in flight; each track's upload
 *    starts as soon as its transaction is confirmed.
 * 2. SetName for every changed file but the entry, once all uploads are certified.
 * 3. SetName for `index.html`, alone and last: the new version of the site goes live at once.
 * 4. With `--prune`: RemoveName for names the site no longer has, then ReleaseTrack for tracks
 *    no name points at (left by interrupted deploys).
 */
export async function executeDeploy(
  w: DeployWriters,
  plan: DeployPlan,
  txs: DeployTransactions,
): Promise<{ pruned: number; released: number }> {
  const signers = w.signer.publicKey.equals(w.payer.publicKey) ? [w.payer] : [w.payer, w.signer];
  const send = (batch: TransactionInstruction[]) => w.chain.send(batch, signers);
  let failure: { error: unknown } | undefined;
  const uploads: Promise<void>[] = [];
  const labels = new Map<string, string>();
  for (const file of plan.files) {
    if (file.track && !labels.has(file.track.commitmentHex))
      labels.set(file.track.commitmentHex, file.name);
  }
  const startUpload = (track: PlannedTrack) => {
    if (failure) return;
    const label = labels.get(track.commitmentHex) ?? track.commitmentHex;
    uploads.push(
      w.uploader.upload(track, label).then(
        () => w.progress.trackUploaded(label),
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
  if (failure) throw failure.error;

  await runBounded(txs.nameBatches.length, w.txConcurrency, (i) =>
    send(txs.nameBatches[i]).then(() => undefined),
  );
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
  const orphans = (await w.chain.listTracks(w.tape)).filter((t) => t.refs === 0);
  const releases = orphans.map((t) =>
    w.chain.ix.releaseTrack({
      receiver: w.payer.publicKey,
      signer: w.signer.publicKey,
      tape: w.tape,
      track: t.address,
    }),
  );
  const batches = packFast(releases, w.payer.publicKey);
  await runBounded(batches.length, w.txConcurrency, (i) => send(batches[i]).then(() => undefined));
  if (staleCount > 0 || orphans.length > 0) {
    w.progress.step(
      `pruned ${staleCount} stale ${staleCount === 1 ? 'name' : 'names'}` +
        (orphans.length > 0 ? `, released ${orphans.length} unused tracks` : ''),
    );
  }
  return { pruned: staleCount, released: orphans.length };
}
