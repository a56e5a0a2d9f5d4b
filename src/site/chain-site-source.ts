import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { TapeRecord } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { tapeLife } from '../chain/tape-life';
import { ObjectReader } from '../tracks/object-reader';
import { StoreVersionNodes } from '../versions/store-version-nodes';
import { readWhole } from './site-body-cache';
import {
  pointerOfRecord,
  SiteObject,
  SitePointer,
  SiteRead,
  SiteSource,
  TapeStatus,
} from './site-source';
import { versionObjects } from './version-objects';

/**
 * The site source of a running gateway: the tape record (the network config and the chain clock
 * are cached by the reader), names of a published version from its verified nodes in the track
 * store, bytes through the verifying object reader. There are no per-file name accounts: a tape
 * that has published no version has no names.
 */
@Injectable()
export class ChainSiteSource extends SiteSource {
  constructor(
    private readonly chain: ChainReader,
    private readonly reader: ObjectReader,
    private readonly nodes: StoreVersionNodes,
  ) {
    super();
  }

  async read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead> {
    const address = new PublicKey(tape);
    const [record, status] = await Promise.all([
      withStatus ? this.chain.getTape(address) : null,
      // The clock and config are cached: on a warm gateway this costs no request.
      withStatus ? this.clock() : undefined,
    ]);
    return {
      status: withStatus ? this.statusOf(record, status!) : undefined,
      pointer: withStatus ? pointerOfRecord(record) : undefined,
      // Names live only in versions (readVersion): a tape at version 0 is an empty site.
      objects: names.map(() => null),
    };
  }

  async readVersion(root: Buffer, names: readonly string[]): Promise<(SiteObject | null)[]> {
    return versionObjects(this.nodes.reader(), await this.nodes.root(root), names);
  }

  async versionSettings(root: Buffer): Promise<Buffer> {
    return (await this.nodes.root(root)).settings;
  }

  async pointers(tapes: readonly string[]): Promise<(SitePointer | null)[]> {
    const records = await this.chain.getTapes(tapes.map((t) => new PublicKey(t)));
    return records.map((record) => (record ? pointerOfRecord(record) : null));
  }

  readWhole(object: SiteObject): Promise<Buffer> {
    return readWhole(this.reader, object);
  }

  private async clock(): Promise<{ genesisTime: number; epochSecs: number; now: number }> {
    const [config, now] = await Promise.all([this.chain.networkConfig(), this.chain.chainTime()]);
    return { genesisTime: config.genesisTime, epochSecs: config.epochDurationSecs, now };
  }

  private statusOf(
    record: TapeRecord | null,
    clock: { genesisTime: number; epochSecs: number; now: number },
  ): TapeStatus {
    return tapeLife(record, { ...clock, epochDurationSecs: clock.epochSecs }, clock.now);
  }
}
