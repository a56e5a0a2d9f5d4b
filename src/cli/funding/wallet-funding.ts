import { Injectable } from '@nestjs/common';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { ChainError } from '../../chain/chain-error';
import { probeLocalNetwork } from '../../chain/local-network';
import { associatedTokenAddress } from '../../chain/pdas';
import { LAMPORTS_PER_SIGNATURE } from '../../chain/program-ids';
import { createAssociatedTokenAccountIdempotent, mintTo } from '../../chain/spl-token-instructions';
import { decodeMint } from '../../chain/spl-token-layouts';
import { CliError } from '../cli-error';
import { formatSol, formatTokens } from '../output/units';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { airdropRoute, MintFacts, tokenGrant } from './airdrop-plan';

export const LOCAL_DEFAULT_LAMPORTS = 10 * 1_000_000_000;
/** devnet's and testnet's faucets give a few SOL per request at most: ask for one. */
export const CLUSTER_DEFAULT_LAMPORTS = 1_000_000_000;
export const DEFAULT_TOKENS = 1000n * 1_000_000n;

export interface Balances {
  lamports: number;
  /** Null when the cluster has no storage token for this program. */
  tokens: bigint | null;
}

export interface AirdropResult {
  wallet: PublicKey;
  /** `local`, or the public cluster whose faucet paid. */
  network: 'local' | 'devnet' | 'testnet';
  received: { lamports: number; tokens: bigint };
  /** Why no storage tokens were minted on a cluster; undefined when they were (or locally). */
  tokensSkipped?: string;
  balance: Balances;
}

export interface TransferResult {
  to: PublicKey;
  amount: number | bigint;
  signature: string;
  balance: Balances;
}

/**
 * Where SOL and storage tokens come from: `tape airdrop` (the local network's faucets, or
 * devnet's and testnet's SOL faucet plus a mint the wallet controls), and the operator's
 * `tape network fund` (a SOL transfer) and `tape network mint` (MintTo by the mint authority).
 */
@Injectable()
export class WalletFunding {
  constructor(
    private readonly target: CliTarget,
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
  ) {}

  async airdrop(want: { lamports?: number; tokens?: bigint }): Promise<AirdropResult> {
    const wallet = this.signers.wallet().publicKey;
    // Decided before any faucet request: none is ever sent to mainnet or an unknown node.
    const route = airdropRoute(
      this.target.rpcUrl,
      await this.chain.guarded(probeLocalNetwork(this.target.rpcUrl)),
    );
    const { faucet } = this.chain;
    switch (route.kind) {
      case 'refused':
        throw new ChainError('rpc', route.message);
      case 'local-faucet': {
        const lamports = want.lamports ?? LOCAL_DEFAULT_LAMPORTS;
        const tokens = want.tokens ?? DEFAULT_TOKENS;
        await this.chain
          .guarded(faucet.requestStorageTokens(wallet, tokens))
          .catch((err: unknown) => {
            if (
              err instanceof ChainError &&
              (err.kind === 'unreachable' || /faucet/.test(err.message))
            ) {
              throw err;
            }
            // Something answered, but not a local network's faucet (a web server, a proxy page).
            throw new CliError(
              `the storage-token faucet exists only on a local network; ${this.target.rpcUrl} did not answer as one`,
            );
          });
        await this.chain.guarded(faucet.requestAirdrop(wallet, lamports));
        return {
          wallet,
          network: 'local',
          received: { lamports, tokens },
          balance: await this.balances(wallet),
        };
      }
      case 'cluster-faucet': {
        const lamports = want.lamports ?? CLUSTER_DEFAULT_LAMPORTS;
        await this.chain
          .guarded(faucet.requestClusterAirdrop(wallet, lamports))
          .catch((err: unknown) => {
            if (err instanceof ChainError && err.kind === 'unreachable') throw err;
            throw new CliError(
              `the ${route.cluster} faucet did not give ${formatSol(lamports)} SOL: ${(err as Error).message} ` +
                '(nothing was received; faucets limit each wallet: ask for less with --sol, try later, or use https://faucet.solana.com)',
            );
          });
        const grant = tokenGrant(wallet, await this.mintFacts());
        let tokens = 0n;
        if (grant.kind === 'mint') {
          tokens = want.tokens ?? DEFAULT_TOKENS;
          await this.mintTokens(this.signers.wallet(), wallet, tokens).catch((err: unknown) => {
            throw new CliError(
              `received ${formatSol(lamports)} SOL from the ${route.cluster} faucet, but minting ${formatTokens(tokens)} storage tokens failed: ${(err as Error).message}`,
            );
          });
        }
        return {
          wallet,
          network: route.cluster,
          received: { lamports, tokens },
          tokensSkipped: grant.kind === 'none' ? grant.reason : undefined,
          balance: await this.balances(wallet),
        };
      }
    }
  }

  /** A System transfer of `lamports` from the wallet to `to`, checked before it is signed. */
  async fund(to: PublicKey, lamports: number): Promise<TransferResult> {
    const payer = this.signers.wallet();
    const { rpc, writer, costs } = this.chain;
    const [balance, toBalance, minimum] = await Promise.all([
      rpc.call((c) => c.getBalance(payer.publicKey)),
      rpc.call((c) => c.getBalance(to)),
      costs.rentExempt(0),
    ]);
    // A new account must hold at least the rent-exempt minimum, or the transfer is refused.
    if (toBalance + lamports < minimum) {
      throw new CliError(
        `${to.toBase58()} would hold ${formatSol(toBalance + lamports)} SOL, less than the ${formatSol(minimum)} SOL an account needs (send at least ${formatSol(minimum - toBalance)} SOL)`,
      );
    }
    const needed = lamports + LAMPORTS_PER_SIGNATURE;
    if (balance < needed) {
      throw new CliError(
        `insufficient funds: sending ${formatSol(lamports)} SOL needs ${formatSol(needed)} SOL with its fee; wallet ${payer.publicKey.toBase58()} has ${formatSol(balance)} SOL`,
      );
    }
    const transfer = SystemProgram.transfer({
      fromPubkey: payer.publicKey,
      toPubkey: to,
      lamports,
    });
    const [signature] = await this.chain.guarded(writer.send([transfer], [payer]));
    return { to, amount: lamports, signature, balance: await this.balances(to) };
  }

  /** MintTo `amount` storage tokens into `to`'s token account; the wallet must be the mint authority. */
  async mint(to: PublicKey, amount: bigint): Promise<TransferResult> {
    const authority = this.signers.wallet();
    const grant = tokenGrant(authority.publicKey, await this.mintFacts());
    if (grant.kind === 'none') {
      throw new CliError(
        grant.reason.replace(
          /; the network's operator can send some: .*$/,
          " (pass the mint authority's keypair with -k)",
        ),
      );
    }
    const signature = await this.mintTokens(authority, to, amount);
    return { to, amount, signature, balance: await this.balances(to) };
  }

  private async mintTokens(authority: Keypair, to: PublicKey, amount: bigint): Promise<string> {
    const { reader, writer } = this.chain;
    const { mint } = await reader.networkConfig();
    const account = associatedTokenAddress(to, mint);
    const [signature] = await this.chain.guarded(
      writer.send(
        [
          createAssociatedTokenAccountIdempotent({
            payer: authority.publicKey,
            associatedAccount: account,
            owner: to,
            mint,
          }),
          mintTo({ mint, destination: account, authority: authority.publicKey, amount }),
        ],
        [authority],
      ),
    );
    return signature;
  }

  /** The program's storage-token mint and who may mint it; `missing` when there is none to read. */
  private async mintFacts(): Promise<MintFacts> {
    const { reader, rpc } = this.chain;
    let mint: PublicKey;
    try {
      mint = (await this.chain.guarded(reader.networkConfig())).mint;
    } catch (err) {
      if (err instanceof ChainError && err.kind === 'unreachable') throw err;
      return {
        kind: 'missing',
        reason: `the tape program ${this.target.programId.toBase58()} has no storage token on ${this.target.rpcUrl} (${(err as Error).message}; set the program with --program-id or tape config set program_id)`,
      };
    }
    const info = await rpc.call((c) => c.getAccountInfo(mint));
    try {
      if (!info) throw new Error('no account');
      return { kind: 'mint', address: mint, authority: decodeMint(info.data).mintAuthority };
    } catch {
      return {
        kind: 'missing',
        reason: `no SPL mint at ${mint.toBase58()}, the program's storage token`,
      };
    }
  }

  /** `tape balance`: the wallet's SOL and storage tokens. */
  async walletBalance(): Promise<{ wallet: PublicKey; lamports: number; tokens: bigint }> {
    const wallet = this.signers.wallet().publicKey;
    const { lamports, tokens } = await this.chain.reader.getBalances(wallet);
    return { wallet, lamports, tokens };
  }

  private async balances(owner: PublicKey): Promise<Balances> {
    const { reader, rpc } = this.chain;
    try {
      return await reader.getBalances(owner);
    } catch (err) {
      if (err instanceof ChainError && err.kind === 'unreachable') throw err;
      // No Config for this program here: the SOL balance is still worth showing.
      return { lamports: await rpc.call((c) => c.getBalance(owner)), tokens: null };
    }
  }
}
