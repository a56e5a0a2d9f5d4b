import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { closeConnectionSocket } from './close-connection';
import {
  Commitment,
  Connection,
  GetProgramAccountsFilter,
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainConfig } from '../config/chain.config';
import {
  AccountTag,
  CONFIG_SIZE,
  decodeConfig,
  decodeName,
  decodeTape,
  decodeTrack,
  NameRecord,
  nameSize,
  NetworkConfig,
  TAPE_FIELD_OFFSET,
  TAPE_SIZE,
  TapeRecord,
  TrackRecord,
  trackSize,
} from './account-layouts';
import { ChainError, toChainError } from './chain-error';
import { associatedTokenAddress } from './pdas';
import { DEFAULT_TAPE_PROGRAM_ID, LAMPORTS_PER_SIGNATURE } from './program-ids';
import { epochAt, storageCost } from './storage-pricing';
import { TapeInstructions } from './tape-instructions';
import { ComputeUnitEstimator } from './compute-units';
import { PackedTransaction, packInstructions, PackOptions } from './transaction-packer';

export interface NamedRecord extends NameRecord {
  address: PublicKey;
}

export interface CreateCostEstimate {
  /** Exact storage-token cost (base units). */
  tokens: bigint;
  /** Estimated lamports: rent for the tape account plus transaction fees. */
  lamports: number;
  currentEpoch: number;
  config: NetworkConfig;
}

export interface SendOptions {
  /** Transactions confirmed one after another (true) or several in flight at once (false). */
  ordered?: boolean;
  concurrency?: number;
  onConfirmed?: (instructionsDone: number, signature: string) => void;
}

const CONFIG_CACHE_MS = 60_000;

/**
 * The one way to the chain, for the CLI and the gateway alike: reads tapes, tracks and names,
 * builds, packs, signs, sends and confirms transactions, and prices storage. Built on
 * web3.js, so it runs unchanged against the local network or a cluster with the program.
 */
@Injectable()
export class ChainService implements OnModuleDestroy {
  readonly connection: Connection;
  readonly programId: PublicKey;
  readonly ix: TapeInstructions;
  readonly rpcUrl: string;
  /** How `send` fills transactions: group instructions with these to have each group sent as one. */
  readonly packing: PackOptions;
  private readonly commitment: Commitment;
  private configCache?: { value: NetworkConfig; at: number };
  private clockOffset?: { offsetSecs: number; at: number };
  private readonly logger = new Logger('chain');

  constructor(config: ChainConfig) {
    if (!config.rpc_url) throw new Error('chain.rpc_url is not set');
    this.rpcUrl = config.rpc_url;
    this.commitment = config.commitment;
    this.connection = new Connection(config.rpc_url, {
      commitment: config.commitment,
      wsEndpoint: config.ws_url,
      disableRetryOnRateLimit: true,
    });
    this.programId = config.program_id ? new PublicKey(config.program_id) : DEFAULT_TAPE_PROGRAM_ID;
    this.ix = new TapeInstructions(this.programId);
    this.packing = { computeUnits: new ComputeUnitEstimator(this.programId) };
  }

  /** web3.js would retry its WebSocket for ever after shutdown: close it with the app. */
  onModuleDestroy(): void {
    closeConnectionSocket(this.connection);
  }

  get pdas() {
    return this.ix.pdas;
  }

  // ---- reads ---------------------------------------------------------------------------

  async networkConfig(fresh = false): Promise<NetworkConfig> {
    const cached = this.configCache;
    if (!fresh && cached && Date.now() - cached.at < CONFIG_CACHE_MS) return cached.value;
    const info = await this.rpc(() => this.connection.getAccountInfo(this.pdas.config()));
    if (!info || !info.owner.equals(this.programId) || info.data.length !== CONFIG_SIZE) {
      throw new ChainError(
        'rpc',
        `the tape program is not initialised on ${this.rpcUrl} (no config account)`,
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
    if (cached && Date.now() - cached.at < 10_000) return Math.floor(now + cached.offsetSecs);
    const slot = await this.rpc(() => this.connection.getSlot());
    const blockTime = await this.rpc(() => this.connection.getBlockTime(slot));
    const offsetSecs = blockTime === null ? 0 : blockTime - now;
    this.clockOffset = { offsetSecs, at: Date.now() };
    return Math.floor(now + offsetSecs);
  }

  async currentEpoch(): Promise<number> {
    const [config, time] = await Promise.all([this.networkConfig(), this.chainTime()]);
    return epochAt(time, config.genesisTime, config.epochDurationSecs);
  }

  /** Approximate unix time at which `epoch` starts. */
  async epochStartTime(epoch: number): Promise<number> {
    const config = await this.networkConfig();
    return config.genesisTime + epoch * config.epochDurationSecs;
  }

  tapeAddress(authority: PublicKey): PublicKey {
    return this.pdas.tape(authority);
  }

  trackAddress(tape: PublicKey, commitment: Uint8Array): PublicKey {
    return this.pdas.track(tape, commitment);
  }

  async getTape(tape: PublicKey): Promise<TapeRecord | null> {
    const info = await this.rpc(() => this.connection.getAccountInfo(tape));
    return this.decodeOwned(info, AccountTag.Tape, decodeTape);
  }

  async getTrack(track: PublicKey): Promise<TrackRecord | null> {
    const info = await this.rpc(() => this.connection.getAccountInfo(track));
    return this.decodeOwned(info, AccountTag.Track, decodeTrack);
  }

  async getTracks(addresses: PublicKey[]): Promise<(TrackRecord | null)[]> {
    return this.getMany(addresses, AccountTag.Track, decodeTrack);
  }

  async getNames(tape: PublicKey, names: string[]): Promise<(NameRecord | null)[]> {
    return this.getMany(
      names.map((n) => this.pdas.name(tape, n)),
      AccountTag.Name,
      decodeName,
    );
  }

  /** Every name of a tape: one getProgramAccounts with memcmp filters on tag and tape. */
  async listNames(tape: PublicKey): Promise<NamedRecord[]> {
    const filters: GetProgramAccountsFilter[] = [
      { memcmp: { offset: 0, bytes: bs58.encode(Buffer.from([AccountTag.Name])) } },
      { memcmp: { offset: TAPE_FIELD_OFFSET, bytes: tape.toBase58() } },
    ];
    const accounts = await this.rpc(() =>
      this.connection.getProgramAccounts(this.programId, { filters }),
    );
    const out: NamedRecord[] = [];
    for (const { pubkey, account } of accounts) {
      try {
        out.push({ ...decodeName(account.data), address: pubkey });
      } catch (err) {
        this.logger.warn(`skipping undecodable name account ${pubkey.toBase58()}: ${String(err)}`);
      }
    }
    return out;
  }

  /** Tracks of a tape (for reclaiming unnamed uploads). */
  async listTracks(tape: PublicKey): Promise<(TrackRecord & { address: PublicKey })[]> {
    const filters: GetProgramAccountsFilter[] = [
      { memcmp: { offset: 0, bytes: bs58.encode(Buffer.from([AccountTag.Track])) } },
      { memcmp: { offset: TAPE_FIELD_OFFSET, bytes: tape.toBase58() } },
    ];
    const accounts = await this.rpc(() =>
      this.connection.getProgramAccounts(this.programId, { filters }),
    );
    return accounts.map(({ pubkey, account }) => ({
      ...decodeTrack(account.data),
      address: pubkey,
    }));
  }

  async getBalances(owner: PublicKey): Promise<{ lamports: number; tokens: bigint }> {
    const config = await this.networkConfig();
    const ata = associatedTokenAddress(owner, config.mint);
    const [lamports, tokenInfo] = await Promise.all([
      this.rpc(() => this.connection.getBalance(owner)),
      this.rpc(() => this.connection.getAccountInfo(ata)),
    ]);
    const tokens =
      tokenInfo && tokenInfo.data.length >= 72 ? tokenInfo.data.readBigUInt64LE(64) : 0n;
    return { lamports, tokens };
  }

  // ---- costs ---------------------------------------------------------------------------

  async estimateCreate(capacity: number, epochs: number): Promise<CreateCostEstimate> {
    const [config, currentEpoch, rent] = await Promise.all([
      this.networkConfig(),
      this.currentEpoch(),
      this.rentExempt(TAPE_SIZE),
    ]);
    return {
      tokens: storageCost(capacity, epochs, config.pricePerMibEpoch),
      lamports: rent + 2 * LAMPORTS_PER_SIGNATURE,
      currentEpoch,
      config,
    };
  }

  async rentExempt(dataLength: number): Promise<number> {
    return this.rpc(() => this.connection.getMinimumBalanceForRentExemption(dataLength));
  }

  /** Lamports a deploy of these names needs for rent (tracks + names), before fees. */
  async rentForObjects(objects: { name: string; contentType: string }[]): Promise<number> {
    const sizes = new Map<number, number>();
    for (const o of objects) {
      for (const size of [trackSize(o.contentType), nameSize(o.name, o.contentType)]) {
        sizes.set(size, (sizes.get(size) ?? 0) + 1);
      }
    }
    let total = 0;
    for (const [size, count] of sizes) total += (await this.rentExempt(size)) * count;
    return total;
  }

  // ---- writes --------------------------------------------------------------------------

  /**
   * Sends instructions packed into as few transactions as fit, each with its compute-unit
   * limit (`packing`), signed by `signers` (the first is the fee payer), and waits until each
   * is confirmed. Returns the signatures in order.
   */
  async send(
    instructions: TransactionInstruction[],
    signers: Keypair[],
    options: SendOptions = {},
  ): Promise<string[]> {
    if (instructions.length === 0) return [];
    const payer = signers[0];
    let batches: PackedTransaction[];
    try {
      batches = packInstructions(instructions, payer.publicKey, this.packing);
    } catch (err) {
      throw new ChainError('transaction', (err as Error).message);
    }
    const signatures: string[] = new Array<string>(batches.length);
    let done = 0;
    const runOne = async (index: number) => {
      const batch = batches[index];
      const signature = await this.sendBatch(batch.transactionInstructions, signers);
      signatures[index] = signature;
      done += batch.instructions.length;
      options.onConfirmed?.(done, signature);
    };
    if (options.ordered ?? true) {
      for (let i = 0; i < batches.length; i++) await runOne(i);
    } else {
      await runPool(batches.length, options.concurrency ?? 8, runOne);
    }
    return signatures;
  }

  private async sendBatch(batch: TransactionInstruction[], signers: Keypair[]): Promise<string> {
    const needed = new Set<string>();
    for (const ix of batch) {
      for (const k of ix.keys) if (k.isSigner) needed.add(k.pubkey.toBase58());
    }
    const payer = signers[0];
    needed.add(payer.publicKey.toBase58());
    const used = signers.filter((s) => needed.has(s.publicKey.toBase58()));
    try {
      const { blockhash, lastValidBlockHeight } = await this.connection.getLatestBlockhash(
        this.commitment,
      );
      const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight });
      tx.add(...batch);
      tx.sign(...used);
      const signature = await this.connection.sendRawTransaction(tx.serialize(), {
        preflightCommitment: this.commitment,
      });
      const result = await this.connection.confirmTransaction(
        { signature, blockhash, lastValidBlockHeight },
        this.commitment,
      );
      if (result.value.err) {
        throw Object.assign(new Error(JSON.stringify(result.value.err)), {
          transactionError: result.value.err,
        });
      }
      return signature;
    } catch (err) {
      throw toChainError(err, this.rpcUrl);
    }
  }

  /** Local network faucet for SOL (requestAirdrop); refused by real clusters' rules. */
  async requestAirdrop(owner: PublicKey, lamports: number): Promise<string> {
    const signature = await this.rpc(() => this.connection.requestAirdrop(owner, lamports));
    await this.rpc(() => this.connection.confirmTransaction(signature, this.commitment));
    return signature;
  }

  /** Local network faucet for storage tokens (`tape_requestStorageTokens`). */
  async requestStorageTokens(owner: PublicKey, amount: bigint): Promise<string> {
    const res = await this.rawRpc('tape_requestStorageTokens', [
      owner.toBase58(),
      amount.toString(),
    ]);
    if (res.error) {
      throw new ChainError(
        'rpc',
        res.error.code === -32601
          ? `the storage-token faucet exists only on a local network (${this.rpcUrl})`
          : res.error.message,
      );
    }
    const signature = res.result as string;
    await this.rpc(() => this.connection.confirmTransaction(signature, this.commitment));
    return signature;
  }

  /** True when the RPC answers; used by /healthz. */
  async ping(): Promise<void> {
    await this.rpc(() => this.connection.getSlot());
  }

  private async rawRpc(
    method: string,
    params: unknown[],
  ): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    let res: Response;
    try {
      res = await fetch(this.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    } catch (err) {
      throw toChainError(err, this.rpcUrl);
    }
    return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  }

  private async rpc<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw toChainError(err, this.rpcUrl);
    }
  }

  private async getMany<T>(
    addresses: PublicKey[],
    tag: AccountTag,
    decode: (data: Buffer) => T,
  ): Promise<(T | null)[]> {
    const out: (T | null)[] = [];
    for (let i = 0; i < addresses.length; i += 100) {
      const chunk = addresses.slice(i, i + 100);
      const infos = await this.rpc(() => this.connection.getMultipleAccountsInfo(chunk));
      for (const info of infos) out.push(this.decodeOwned(info, tag, decode));
    }
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

async function runPool(count: number, concurrency: number, run: (i: number) => Promise<void>) {
  let next = 0;
  let failed = false;
  // After the first failure no new transaction starts; those in flight finish.
  const workers = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count && !failed) {
      try {
        await run(next++);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  });
  await Promise.all(workers);
}
