import { Injectable } from '@nestjs/common';
import { Keypair, PublicKey } from '@solana/web3.js';
import { existsSync } from 'node:fs';
import { readKeypair, writeKeypair } from '../../chain/keypair-file';
import { CliError } from '../cli-error';
import { Printer } from '../output/printer';
import { CliConfigStore } from './cli-config-store';
import { CliEnvironment } from './cli-environment';
import { CliTarget, Invocation } from './cli-target';
import { LoadedTape } from './loaded-tape';
import { locateWallet, WalletLocation } from './wallet-location';

/**
 * The keys of one invocation: the wallet (`-k`, the config key, `id.json`, else the Solana
 * CLI's keypair) and the key that writes to a tape. Read on first use, once per invocation: a
 * missing wallet is only an error for commands that sign.
 */
@Injectable()
export class CliSigners {
  private read?: { invocation: Invocation; location?: WalletLocation; wallet?: Keypair };

  constructor(
    private readonly target: CliTarget,
    private readonly store: CliConfigStore,
    private readonly env: CliEnvironment,
    /** Where a one-line note for a human goes (stderr): which fallback wallet signs. */
    private readonly printer: Printer,
  ) {}

  /** What was read for this invocation (a new `start` forgets it). */
  private get current(): { location?: WalletLocation; wallet?: Keypair } {
    const invocation = this.target.started;
    if (this.read?.invocation !== invocation) this.read = { invocation };
    return this.read;
  }

  /**
   * The path `tape keygen` writes: `-k`, else the config key `keypair`, else tape's own
   * `id.json` (never a Solana CLI file).
   */
  get keypairPath(): string {
    const given = this.target.options.keypair;
    return given ?? this.store.get('keypair') ?? this.store.defaultKeypairPath;
  }

  /**
   * Where the signing wallet is read from: `-k`, else `id.json` in the config directory, else
   * the Solana CLI's keypair (src/cli/session/wallet-location.ts).
   */
  get walletFile(): WalletLocation {
    const current = this.current;
    const given = this.target.options.keypair;
    current.location ??= locateWallet(
      given,
      this.store.defaultKeypairPath,
      this.env,
      given === undefined ? this.store.get('keypair') : undefined,
    );
    return current.location;
  }

  /**
   * `tape keygen`: a new wallet keypair at `keypairPath`; an existing file is replaced only
   * with `force` (its key is then lost).
   */
  createWallet(force: boolean): { path: string; pubkey: PublicKey } {
    const path = this.keypairPath;
    if (existsSync(path) && !force) {
      throw new CliError(
        `${path} already exists (use --force to replace it; the old key is then lost)`,
      );
    }
    const keypair = Keypair.generate();
    writeKeypair(path, keypair, force);
    return { path, pubkey: keypair.publicKey };
  }

  /** The signing wallet; says on stderr, once, when it is the Solana CLI's keypair. */
  wallet(): Keypair {
    const current = this.current;
    if (current.wallet) return current.wallet;
    const location = this.walletFile;
    try {
      current.wallet = readKeypair(location.path);
      if (location.note) this.printer.note(location.note);
    } catch (err) {
      const message = (err as Error).message;
      if (!this.target.options.keypair && message.startsWith('no keypair at')) {
        throw new CliError(`${message} (create one: tape keygen)`);
      }
      throw new CliError(message);
    }
    return current.wallet;
  }

  /**
   * The key that writes to a tape: its own keypair from the config directory when we have it,
   * else the wallet when the wallet is the tape's authority or delegate. Checked here, before
   * anything is signed, so a wrong key is one clear line rather than a failed transaction.
   */
  tapeSigner(tape: LoadedTape, authorityOnly = false): Keypair {
    const saved = this.store.readTapeKeypair(tape.address.toBase58());
    if (saved && saved.publicKey.equals(tape.record.authority)) return saved;
    const wallet = this.wallet();
    if (wallet.publicKey.equals(tape.record.authority)) return wallet;
    if (!authorityOnly && tape.record.delegate && wallet.publicKey.equals(tape.record.delegate)) {
      return wallet;
    }
    throw new CliError(
      unauthorizedExplanation(wallet.publicKey, tape.address, this.store.dir, authorityOnly),
    );
  }
}

function unauthorizedExplanation(
  signer: PublicKey,
  tape: PublicKey,
  configDir: string,
  authorityOnly = false,
): string {
  const who = authorityOnly ? "the tape's keypair" : "the tape's keypair or its delegate";
  return (
    `unauthorized signer: ${signer.toBase58()} is not ${who} for tape ${tape.toBase58()} ` +
    `(the tape keypair is saved as ${configDir}/tapes/<tape address>.json where the tape was created; pass it with -k)`
  );
}
