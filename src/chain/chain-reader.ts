import { Logger } from '@nestjs/common';
import { AccountInfo, PublicKey } from '@solana/web3.js';
import {
  AccountTag,
  CONFIG_SIZE,
  decodeConfig,
  decodeTape,
  NetworkConfig,
  TapeRecord,
} from './account-layouts';
import { ChainError } from './chain-error';
import { ChainRpc } from './chain-rpc';
import { associatedTokenAddress } from './pdas';
import { epochAt } from './storage-pricing';
import { TapeInstructions } from './tape-instructions';

/** Accounts per getMultipleAccounts: the limit of Solana's RPC. */
export const MAX_ACCOUNTS_PER_REQUEST = 100;
/** getMultipleAccounts requests of one read in flight at once. */
const READS_IN_FLIGHT = 4;
const CONFIG_CACHE_MS = 60_000;
const CLOCK_CACHE_MS = 10_000;

/**
 * Reads the tape program's accounts and decodes them: the network config, the chain clock,
 * tapes (one getMultipleAccounts per 100 addresses) and balances. Nothing here needs
 * getProgramAccounts: a tape's files are in its versions (docs/versions.md), not in accounts.
 */
export class ChainReader {
  private configCache?: { value: NetworkConfig; at: number };
  private clockOffset?: { offsetSecs: number; at: number };
  private readonly logger = new Logger('chain');

  constructor(
    private readonly rpc: ChainRpc,
    private readonly program: TapeInstructions,
  ) {}

  private get programId(): PublicKey {
    return this.program.programId;
  }

  async networkConfig(fresh = false): Promise<NetworkConfig> {
    const cached = this.configCache;
    if (!fresh && cached && Date.now() - cached.at < CONFIG_CACHE_MS) return cached.value;
    const info = await this.rpc.call((c) => c.getAccountInfo(this.program.pdas.config()));
    if (!info || !info.owner.equals(this.programId) || info.data.length !== CONFIG_SIZE) {
      throw new ChainError(
        'rpc',
        `the tape program is not initialised on ${this.rpc.url} (no config account)`,
      );
    }
    const value = decodeConfig(info.data);
    this.configCache = { value, at: Date.now() };
    return value;
  }

  /** Chain time in unix seconds (block time of the latest slot), cached as an offset. */
  async chainTime(): Promise<number> {
    const now = Date.now() / 1000;
    const cached = this.clockOffset;
    if (cached && Date.now() - cached.at < CLOCK_CACHE_MS) {
      return Math.floor(now + cached.offsetSecs);
    }
    const slot = await this.rpc.call((c) => c.getSlot());
    const blockTime = await this.rpc.call((c) => c.getBlockTime(slot));
    const offsetSecs = blockTime === null ? 0 : blockTime - now;
    this.clockOffset = { offsetSecs, at: Date.now() };
    return Math.floor(now + offsetSecs);
  }

  async currentEpoch(): Promise<number> {
    return (await this.clock()).currentEpoch;
  }

  /**
   * The network config, chain time and current epoch from one read of each (asking for the three
   * at once would read the config and the time twice, before either is cached).
   */
  async clock(): Promise<{ config: NetworkConfig; now: number; currentEpoch: number }> {
    const [config, now] = await Promise.all([this.networkConfig(), this.chainTime()]);
    return {
      config,
      now,
      currentEpoch: epochAt(now, config.genesisTime, config.epochDurationSecs),
    };
  }

  async getTape(tape: PublicKey): Promise<TapeRecord | null> {
    const info = await this.rpc.call((c) => c.getAccountInfo(tape));
    return this.decodeOwned(info, AccountTag.Tape, decodeTape);
  }

  /** Tapes by address, one getMultipleAccounts per 100 (the track store's collector). */
  async getTapes(addresses: PublicKey[]): Promise<(TapeRecord | null)[]> {
    const infos = await this.getAccounts(addresses);
    return infos.map((info) => this.decodeOwned(info, AccountTag.Tape, decodeTape));
  }

  async getBalances(owner: PublicKey): Promise<{ lamports: number; tokens: bigint }> {
    const config = await this.networkConfig();
    const ata = associatedTokenAddress(owner, config.mint);
    const [lamports, tokenInfo] = await Promise.all([
      this.rpc.call((c) => c.getBalance(owner)),
      this.rpc.call((c) => c.getAccountInfo(ata)),
    ]);
    const tokens =
      tokenInfo && tokenInfo.data.length >= 72 ? tokenInfo.data.readBigUInt64LE(64) : 0n;
    return { lamports, tokens };
  }

  /** getMultipleAccounts, 100 addresses per request, a few requests in flight at once. */
  private async getAccounts(addresses: PublicKey[]): Promise<(AccountInfo<Buffer> | null)[]> {
    const out = new Array<AccountInfo<Buffer> | null>(addresses.length);
    let next = 0;
    const worker = async () => {
      while (next < addresses.length) {
        const start = next;
        next += MAX_ACCOUNTS_PER_REQUEST;
        const chunk = addresses.slice(start, start + MAX_ACCOUNTS_PER_REQUEST);
        const infos = await this.rpc.call((c) => c.getMultipleAccountsInfo(chunk));
        for (let i = 0; i < infos.length; i++) out[start + i] = infos[i];
      }
    };
    const requests = Math.ceil(addresses.length / MAX_ACCOUNTS_PER_REQUEST);
    await Promise.all(Array.from({ length: Math.min(requests, READS_IN_FLIGHT) }, worker));
    return out;
  }

  private decodeOwned<T>(
    info: { owner: PublicKey; data: Buffer } | null,
    tag: AccountTag,
    decode: (data: Buffer) => T,
  ): T | null {
    if (!info || !info.owner.equals(this.programId) || info.data[0] !== tag) return null;
    return decode(info.data);
  }
}
