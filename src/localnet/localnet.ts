import { PublicKey } from '@solana/web3.js';
import { join } from 'node:path';
import { decodeConfig, TAPE_SIZE } from '../chain/account-layouts';
import { TapePdas } from '../chain/pdas';
import { DEFAULT_TAPE_PROGRAM_ID } from '../chain/program-ids';
import { Bank } from './bank/bank';
import { Faucet } from './faucet';
import { LocalnetConfig } from '../config/localnet.config';
import { FaucetRateLimit, FaucetRateLimits } from './faucet-rate-limit';
import { localnetLimits } from './localnet-limits';
import { runGenesis } from './genesis';
import { readOrCreateKeypair as loadOrCreateKeypair } from '../chain/keypair-file';
import { LedgerStore } from './ledger/ledger-store';
import { RpcLimits } from './rpc/rpc-limits';
import { RpcAnswerObserver } from './rpc/json-rpc-http-server';
import { RpcServers, startRpcServers } from './rpc/rpc-servers';
import { SvmExecutor } from './svm/svm-executor';
import { readTapeProgramElf } from './svm/tape-program-elf';

export interface LocalnetOptions {
  dataDir: string;
  host: string;
  /** JSON-RPC port (0: any free port); WebSocket subscriptions listen on port + 1. */
  port: number;
  epochDurationSecs: number;
  pricePerMibEpoch: number;
  slotMs: number;
  /** The only key that may certify tracks (the gateway's key). */
  storageAuthority: PublicKey;
  programId?: PublicKey;
  /** Largest SOL airdrop per request, in lamports (default 1,000 SOL). */
  maxAirdropLamports?: number;
  /** Largest storage-token grant per request, in base units (default 10^12: a million tokens). */
  maxStorageTokens?: bigint;
  /** What one JSON-RPC request may ask (`localnet.*` defaults for what is not given). */
  rpcLimits?: Partial<RpcLimits>;
  /** The faucet's rate limits (`localnet.*` defaults for what is not given). */
  faucetRateLimits?: Partial<FaucetRateLimits>;
  /** Structured events (listening, dropped transactions, internal errors). */
  log?: (event: Record<string, unknown>) => void;
}

export interface Localnet {
  rpcUrl: string;
  wsUrl: string;
  faucet: PublicKey;
  genesisHash: string;
  /** Current slot and transactions processed since genesis (gateway metrics). */
  stats(): { slot: number; transactionCount: number };
  /** From now on, each JSON-RPC answer over HTTP is told to `observer` (the gateway's metrics). */
  observeRpcAnswers(observer: RpcAnswerObserver): void;
  close(): Promise<void>;
}

/** What is not given: the defaults of `localnet.*` (src/config/localnet.config.ts), one place. */
const DEFAULTS = localnetLimits(new LocalnetConfig());

/**
 * Starts the embedded Solana-compatible network: opens (or creates, with genesis) the ledger in
 * `<dataDir>/ledger.sqlite`, produces a block every `slotMs`, and serves JSON-RPC on `port` and
 * PubSub on `port + 1`.
 */
export async function startLocalnet(opts: LocalnetOptions): Promise<Localnet> {
  const log = opts.log ?? (() => undefined);
  const programId = opts.programId ?? DEFAULT_TAPE_PROGRAM_ID;
  const ledger = new LedgerStore(opts.dataDir);
  try {
    const executor = new SvmExecutor(ledger);
    const faucetKey = loadOrCreateKeypair(join(opts.dataDir, 'faucet-keypair.json'));
    const genesisHash = ledger.getMeta('genesis_hash');
    if (genesisHash) checkLedgerLayout(ledger, opts.dataDir);
    // Marked before genesis: a start cut short in between runs genesis again, marked.
    else ledger.putMeta(LAYOUT_META, String(TAPE_SIZE));
    const bank = genesisHash
      ? new Bank(ledger, executor, genesisHash)
      : runGenesis(ledger, executor, {
          faucet: faucetKey,
          programId,
          programElf: readTapeProgramElf(),
          storageAuthority: opts.storageAuthority,
          epochDurationSecs: opts.epochDurationSecs,
          pricePerMibEpoch: opts.pricePerMibEpoch,
          nowMs: Date.now(),
        });
    if (!genesisHash) log({ event: 'genesis', genesisHash: bank.genesisHash });
    warnOnConfigDrift(ledger, programId, opts, log);
    const faucet = new Faucet(bank, ledger, faucetKey, programId, {
      maxAirdropLamports: opts.maxAirdropLamports ?? DEFAULTS.maxAirdropLamports,
      maxStorageTokens: opts.maxStorageTokens ?? DEFAULTS.maxStorageTokens,
    });
    // Set once the gateway app that counts them exists (it starts after the network).
    let rpcAnswers: RpcAnswerObserver | undefined;
    const servers: RpcServers = await startRpcServers({
      bank,
      ledger,
      faucet,
      faucetRateLimit: new FaucetRateLimit({
        ...DEFAULTS.faucetRateLimits,
        ...opts.faucetRateLimits,
      }),
      limits: { ...DEFAULTS.rpcLimits, ...opts.rpcLimits },
      host: opts.host,
      port: opts.port,
      log,
      onAnswered: (status, seconds, bytes) => rpcAnswers?.(status, seconds, bytes),
    });
    const timer = setInterval(() => {
      try {
        bank.produceBlock();
      } catch (err) {
        log({ event: 'block_failed', error: (err as Error).message });
      }
    }, opts.slotMs);
    const rpcUrl = `http://${urlHost(opts.host)}:${servers.rpcPort}`;
    const wsUrl = `ws://${urlHost(opts.host)}:${servers.wsPort}`;
    log({
      event: 'listening',
      rpcUrl,
      wsUrl,
      slot: bank.slot,
      faucet: faucetKey.publicKey.toBase58(),
    });
    let closed: Promise<void> | null = null;
    return {
      rpcUrl,
      wsUrl,
      faucet: faucetKey.publicKey,
      genesisHash: bank.genesisHash,
      stats: () => ({ slot: bank.slot, transactionCount: bank.transactionCount }),
      observeRpcAnswers: (observer) => {
        rpcAnswers = observer;
      },
      close: () => {
        closed ??= (async () => {
          clearInterval(timer);
          await servers.close();
          ledger.close();
        })();
        return closed;
      },
    };
  } catch (err) {
    ledger.close();
    throw err;
  }
}

/** The byte length of the tape record the ledger was made with (written at genesis). */
const LAYOUT_META = 'tape_record_bytes';

/** A ledger whose tape records this build cannot read: its data directory must be set aside. */
export class OldLedgerError extends Error {}

/**
 * Refuses a ledger made with another tape record layout (program 1.3.0's is 2221 bytes, with
 * the version history and aliases; 1.2.0's was 242, with one previous version; 1.1.0's was 258,
 * with the per-file counters; the ledgers of earlier builds have no layout mark and 114-byte
 * tapes): its tapes would fail to decode one request at a time. One clear line
 * instead, saying what to do.
 */
function checkLedgerLayout(ledger: LedgerStore, dataDir: string): void {
  const layout = ledger.getMeta(LAYOUT_META);
  if (layout === String(TAPE_SIZE)) return;
  throw new OldLedgerError(
    `the local network's ledger in ${dataDir} was made by an older build (tape records of ` +
      `${layout ?? 114} bytes; this build's are ${TAPE_SIZE}) and its tapes cannot be read: ` +
      `start on a fresh data directory (move ${dataDir} aside, or set TAPE_DATA_DIR to a new ` +
      'one) and create the tapes again (docs/localnet.md, "Upgrading")',
  );
}

/** The Config account is written once at genesis; later settings do not change it. */
function warnOnConfigDrift(
  ledger: LedgerStore,
  programId: PublicKey,
  opts: LocalnetOptions,
  log: (event: Record<string, unknown>) => void,
): void {
  const account = ledger.getAccount(new TapePdas(programId).config().toBuffer());
  if (!account)
    throw new Error(`the ledger has no Config account for program ${programId.toBase58()}`);
  const config = decodeConfig(account.data);
  const drift: string[] = [];
  if (!config.storageAuthority.equals(opts.storageAuthority)) drift.push('storageAuthority');
  if (config.epochDurationSecs !== opts.epochDurationSecs) drift.push('epochDurationSecs');
  if (config.pricePerMibEpoch !== BigInt(opts.pricePerMibEpoch)) drift.push('pricePerMibEpoch');
  if (drift.length > 0) {
    log({
      event: 'config_differs_from_genesis',
      fields: drift,
      note: 'the Config account keeps its genesis values; start with a fresh data dir to change them',
    });
  }
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
