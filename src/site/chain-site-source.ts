import { Injectable } from '@nestjs/common';
import { PublicKey } from '@solana/web3.js';
import { TrackKind } from '../chain/account-layouts';
import { ChainReader } from '../chain/chain-reader';
import { ObjectReader } from '../tracks/object-reader';
import { readWhole } from './site-body-cache';
import { SiteObject, SiteSource, TapeStatus } from './site-source';

/**
 * The site source of a running gateway: tape records and object names from the chain (one
 * getProgramAccounts per listing), bytes through the verifying object reader.
 */
@Injectable()
export class ChainSiteSource extends SiteSource {
  constructor(
    private readonly chain: ChainReader,
    private readonly reader: ObjectReader,
  ) {
    super();
  }

  async tapeStatus(tape: string): Promise<TapeStatus> {
    const record = await this.chain.getTape(new PublicKey(tape));
    if (!record) return { kind: 'unknown' };
    const [config, now] = await Promise.all([this.chain.networkConfig(), this.chain.chainTime()]);
    // The program's rule (docs/program.md): active while current_epoch < expiry_epoch, that
    // is until the expiry epoch starts.
    const endsAt = config.genesisTime + record.expiryEpoch * config.epochDurationSecs;
    return endsAt > now
      ? { kind: 'active', expiresInMs: (endsAt - now) * 1000 }
      : { kind: 'expired' };
  }

  async listObjects(tape: string): Promise<SiteObject[]> {
    const names = await this.chain.listNames(new PublicKey(tape));
    return names.map((record) => ({
      name: record.name,
      kind: record.kind === TrackKind.Manifest ? 'manifest' : 'blob',
      commitment: record.commitment,
      commitmentHex: record.commitment.toString('hex'),
      size: record.size,
      contentType: record.contentType,
    }));
  }

  readWhole(object: SiteObject): Promise<Buffer> {
    return readWhole(this.reader, object);
  }
}
