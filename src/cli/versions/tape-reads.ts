import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { NetworkConfig, TapeRecord } from '../../chain/account-layouts';
import { CliChain } from '../session/cli-chain';
import { CliGateway } from '../session/cli-gateway';
import { CurrentVersion, readCurrentRoot, readCurrentVersion } from './current-version';

/** `tape info`'s facts: the tape as the chain holds it, the network's terms, its name count. */
export interface TapeFacts {
  address: PublicKey;
  record: TapeRecord;
  config: NetworkConfig;
  /** Chain time (unix seconds) and epoch. */
  now: number;
  currentEpoch: number;
  /** Names in the current version; null, with the gateway's reason, when it could not say. */
  objects: { count: number | null; why?: string };
}

/**
 * What `tape info` and `tape object ls` read of the target's tape: the chain's record and
 * terms, and the current version from the gateway, checked against the chain's pointer.
 */
@Injectable()
export class TapeReads {
  constructor(
    private readonly chain: CliChain,
    private readonly gateways: CliGateway,
  ) {}

  async facts(): Promise<TapeFacts> {
    const { address, record } = await this.chain.loadTape();
    const { reader } = this.chain;
    const { config, now, currentEpoch } = await reader.clock();
    const objects = await this.objectCount(address, record);
    return { address, record, config, now, currentEpoch, objects };
  }

  /** The current version (its entries), failing fast if the RPC goes away meanwhile. */
  async currentVersion(): Promise<{ address: PublicKey; current: CurrentVersion }> {
    const tape = await this.chain.loadTape();
    const gateway = this.gateways.client();
    try {
      const current = await this.chain.guarded(
        readCurrentVersion(this.chain.reader, gateway, tape.address, tape.record),
      );
      return { address: tape.address, current };
    } finally {
      gateway.close();
    }
  }

  /**
   * Names in the current version: its root's entry count, read from the gateway and checked
   * against the pointer (only the root is read). Unknown, with the reason, when the gateway
   * cannot say: the rest of `tape info` comes from the chain alone.
   */
  private async objectCount(
    address: PublicKey,
    record: TapeRecord,
  ): Promise<{ count: number | null; why?: string }> {
    if (record.version === 0) return { count: 0 };
    const gateway = this.gateways.client();
    try {
      const root = await readCurrentRoot(gateway, address, record);
      return { count: root?.entryCount ?? 0 };
    } catch (err) {
      return { count: null, why: (err as Error).message };
    } finally {
      gateway.close();
    }
  }
}
