import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { CliChain } from '../session/cli-chain';
import { CliGateway } from '../session/cli-gateway';
import { CliSigners } from '../session/cli-signers';
import { ChangePublisher } from '../versions/change-publisher';
import { VersionPublisher } from '../versions/version-publisher';
import { assertCanPay, assertTapeActive } from './deploy-preflight';
import { storageAuthorityOf } from './site-deployer';

export interface ObjectRemovalResult {
  /** The names removed, each once, in the order given. */
  removed: string[];
  tape: PublicKey;
  /** The tape's version after the removal. */
  version: number;
}

/**
 * `tape object rm`: one version of the site without the given names, published like a deploy
 * (planned on the current version, compare-and-swap, planned again when another writer won).
 * Every name must be in the current version; several are confirmed before anything is signed.
 */
@Injectable()
export class ObjectRemoval {
  constructor(
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
    private readonly gateways: CliGateway,
  ) {}

  async remove(
    names: string[],
    /** Asked once when several names are removed (throws to stop). */
    confirm: (names: string[], tape: string) => Promise<void>,
  ): Promise<ObjectRemovalResult> {
    const tape = await this.chain.loadTape();
    const { reader } = this.chain;
    const { config, now, currentEpoch } = await reader.clock();
    assertTapeActive(tape.record, currentEpoch, {
      address: tape.address,
      clock: config,
      nowUnix: now,
    });
    const unique = [...new Set(names)];
    const signer = this.signers.tapeSigner(tape);
    const payer = this.signers.wallet();
    const gateway = this.gateways.client();
    try {
      const config = await gateway.uploadConfig();
      const storageAuthority = storageAuthorityOf(config.storageAuthority, gateway.baseUrl);
      const publisher = new VersionPublisher(gateway, this.chain.rpc, this.chain.ix, {
        concurrency: 8,
        segmentBytes: config.segmentBytes,
        storageAuthority,
      });
      const changes = new ChangePublisher(this.chain.services, gateway, publisher);
      const outcome = await this.chain.guarded(
        changes.publish({
          tape: tape.address,
          tapeSigner: signer,
          wallet: payer,
          change: (base) => {
            const held = new Set(base.entries.map((e) => e.name));
            const absent = unique.filter((n) => !held.has(n));
            if (absent.length > 0) {
              throw new CliError(
                `no object named '${printable(absent[0])}' on tape ${tape.address.toBase58()}` +
                  (base.version > 0 ? ` (version ${base.version})` : '') +
                  '; nothing was removed',
              );
            }
            return { put: [], remove: unique };
          },
          readSmall: () => Promise.reject(new Error('removing names reads no file')),
          pathOf: () => {
            throw new Error('removing names uploads no file');
          },
          check: async (_planned, attempt) => {
            // One name is what was typed; several are listed and confirmed (once: a rebase
            // removes the same names).
            if (attempt === 1 && unique.length > 1) {
              await confirm(unique, tape.address.toBase58());
            }
            const { lamports } = await reader.getBalances(payer.publicKey);
            assertCanPay(
              payer.publicKey,
              lamports,
              changes.publishFee(signer, payer, storageAuthority),
              'removing the objects',
            );
          },
        }),
      );
      const version = outcome.published?.version ?? outcome.base.version;
      return { removed: unique, tape: tape.address, version };
    } finally {
      gateway.close();
    }
  }
}
