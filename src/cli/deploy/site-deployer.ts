import { Injectable } from '@nestjs/common';
import { labelFromAddress } from '../../chain/tape-label';
import { formatBytes } from '../output/units';
import { expiryWarning } from '../output/expiry-notice';
import { Printer } from '../output/printer';
import { TapeSession } from '../session/tape-session';
import {
  assertCanPay,
  assertCapacity,
  assertTapeActive,
  deployLamports,
  deployPriorityFees,
} from './deploy-preflight';
import { buildDeployTransactions, executeDeploy } from './deploy-executor';
import { commitmentsToLookUp, planDeploy } from './deploy-planner';
import { DeployProgress, PlainProgress, TerminalProgress } from './deploy-progress';
import { memoizedInstructions } from './memoized-instructions';
import { hashSiteFiles } from './site-hasher';
import { scanSite } from './site-scanner';
import { TrackUploader } from './track-uploader';

export interface DeployOptions {
  prune: boolean;
  /** Uploads in flight at once, at most. */
  concurrency: number;
  /** The longest one upload request waits on a busy gateway, in all (`--max-wait`). */
  maxWaitMs: number;
}

export interface DeployResult {
  tape: string;
  label: string;
  url: string;
  files: number;
  uploaded: number;
  unchanged: number;
  bytesUploaded: number;
  pruned: number;
  released: number;
}

/** Transactions in flight at once: enough to hide confirmation latency, few enough for an RPC. */
const TX_CONCURRENCY = 16;

/**
 * `tape deploy`: scan, hash, compare with the tape, check everything that can be checked
 * (tape active, signer allowed, capacity, funds, transaction sizes) and only then write.
 */
@Injectable()
export class SiteDeployer {
  constructor(private readonly printer: Printer) {}

  async deploy(
    session: TapeSession,
    indexPath: string,
    options: DeployOptions,
  ): Promise<DeployResult> {
    const terminal = this.printer.terminal();
    const progress: DeployProgress = terminal
      ? new TerminalProgress(terminal)
      : new PlainProgress((line) => this.printer.note(line));

    const site = await scanSite(indexPath);
    const tape = await session.loadTape();
    const chain = session.chain;
    const { reader } = chain;
    const [clock, nowUnix, currentEpoch] = await Promise.all([
      reader.networkConfig(),
      reader.chainTime(),
      reader.currentEpoch(),
    ]);
    assertTapeActive(tape.record, currentEpoch, { address: tape.address, clock, nowUnix });
    const warning = expiryWarning(tape.address, tape.record, clock, nowUnix);
    if (warning) this.printer.note(warning);
    const signer = session.tapeSigner(tape);
    const payer = session.wallet();
    const gateway = session.gateway();
    try {
      const { segmentBytes } = await gateway.uploadConfig();
      const totalBytes = site.files.reduce((sum, f) => sum + f.size, 0);
      const hashed = await hashSiteFiles(site.files, segmentBytes);
      progress.step(
        `hashed ${site.files.length} ${site.files.length === 1 ? 'file' : 'files'} (${formatBytes(totalBytes)})` +
          (site.hidden.length > 0 ? `, skipped ${site.hidden.length} hidden` : ''),
      );
      const names = await reader.listNames(tape.address);
      // Deriving an address costs a curve check: each one is derived once per deploy.
      const ix = memoizedInstructions(chain.ix.programId);
      const trackAddress = (c: Buffer) => ix.pdas.track(tape.address, c);
      const wanted = commitmentsToLookUp(hashed, names);
      const records = await reader.getTracks(wanted.map(trackAddress));
      const plan = planDeploy({
        files: hashed,
        names,
        tracks: new Map(wanted.map((c, i) => [c.toString('hex'), records[i]])),
        trackAddress,
      });
      assertCapacity(tape.record, plan.newBytes);
      const txs = buildDeployTransactions(
        { ix, packing: chain.writer.packing, tape: tape.address, payer, signer },
        plan,
        options.prune,
      );
      if (txs.count > 0) {
        const needed =
          (await deployLamports(plan, txs.count, (n) => chain.costs.rentExempt(n))) +
          deployPriorityFees(txs, chain.writer.packing);
        const { lamports } = await reader.getBalances(payer.publicKey);
        assertCanPay(payer.publicKey, lamports, needed, 'this deploy');
      }
      const changed = plan.publish.length + (plan.entry ? 1 : 0);
      progress.step(`${changed} changed, ${plan.unchanged.length} unchanged`);

      const label = labelFromAddress(tape.address);
      const url = session.siteUrl(label);
      const uploader = new TrackUploader(gateway, tape.address, signer, {
        concurrency: options.concurrency,
        maxWaitMs: options.maxWaitMs,
        onBytes: (n) => progress.bytesSent(n),
        onWait: (status, ms) => progress.waiting(status, ms),
      });
      const { pruned, released } = await session.guarded(
        executeDeploy(
          {
            reader,
            writer: chain.writer,
            ix,
            tape: tape.address,
            payer,
            signer,
            uploader,
            progress,
            txConcurrency: TX_CONCURRENCY,
          },
          plan,
          txs,
        ),
      );
      return {
        tape: tape.address.toBase58(),
        label,
        url,
        files: plan.files.length,
        uploaded: changed,
        unchanged: plan.unchanged.length,
        bytesUploaded: plan.toUpload.reduce((sum, t) => sum + t.size, 0),
        pruned,
        released,
      };
    } finally {
      gateway.close();
    }
  }
}
