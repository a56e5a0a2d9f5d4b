import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { NameRecord, TapeRecord, TrackKind } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { tapeLife } from '../chain/tape-life';
import { ObjectReader } from '../tracks/object-reader';
import { readWhole } from './site-body-cache';
import { SiteObject, SiteRead, SiteSource, TapeStatus } from './site-source';

/**
 * The site source of a running gateway: the tape record and the names a path needs in one
 * getMultipleAccounts of their addresses (the network config and the chain clock are cached by
 * the reader), bytes through the verifying object reader.
 */
@Injectable()
export class ChainSiteSource extends SiteSource {
  constructor(
    private readonly chain: ChainReader,
    private readonly reader: ObjectReader,
  ) {
    super();
  }

  async read(tape: string, names: readonly string[], withStatus: boolean): Promise<SiteRead> {
    const address = new PublicKey(tape);
    const [read, status] = await Promise.all([
      this.chain.getTapeWithNames(address, names, withStatus),
      // The clock and config are cached: on a warm gateway this costs no request.
      withStatus ? this.clock() : undefined,
    ]);
    return {
      status: withStatus ? this.statusOf(read.tape, status!) : undefined,
      objects: read.names.map((record) => (record ? siteObject(record) : null)),
    };
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

function siteObject(record: NameRecord): SiteObject {
  return {
    name: record.name,
    kind: record.kind === TrackKind.Manifest ? 'manifest' : 'blob',
    commitment: record.commitment,
    commitmentHex: record.commitment.toString('hex'),
    size: record.size,
    contentType: record.contentType,
  };
}
