import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from '@solana/web3.js';
import { decodeConfig, NetworkConfig } from '../../../src/chain/account-layouts';
import { associatedTokenAddress, TapePdas } from '../../../src/chain/pdas';
import { DEFAULT_TAPE_PROGRAM_ID } from '../../../src/chain/program-ids';
import { decodeTokenAccount } from '../../../src/chain/spl-token-layouts';
import { closeConnectionSocket } from '../../../src/chain/close-connection';

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: { err?: unknown; logs?: string[] };
}

export interface RpcReply {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests probe arbitrary JSON results
  result?: any;
  error?: RpcErrorBody;
}

/** The real web3.js Connection plus raw JSON-RPC for what a client library would hide. */
export class LocalnetClient {
  readonly connection: Connection;
  readonly pdas = new TapePdas(DEFAULT_TAPE_PROGRAM_ID);

  constructor(
    readonly rpcUrl: string,
    wsUrl: string,
  ) {
    this.connection = new Connection(rpcUrl, { commitment: 'confirmed', wsEndpoint: wsUrl });
  }

  /** Closes web3.js's WebSocket for good (it would retry a stopped node for ever). */
  close(): void {
    closeConnectionSocket(this.connection);
  }

  async rpc(method: string, params: unknown[] = []): Promise<RpcReply> {
    const res = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as RpcReply;
  }

  async post(body: string): Promise<{ status: number; text: string }> {
    const res = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, text: await res.text() };
  }

  async confirm(signature: string): Promise<void> {
    const latest = await this.connection.getLatestBlockhash();
    const result = await this.connection.confirmTransaction({ signature, ...latest }, 'confirmed');
    if (result.value.err)
      throw new Error(`transaction failed: ${JSON.stringify(result.value.err)}`);
  }

  /** A new keypair holding `sol` SOL from the faucet. */
  async funded(sol = 10): Promise<Keypair> {
    const keypair = Keypair.generate();
    await this.confirm(
      await this.connection.requestAirdrop(keypair.publicKey, sol * LAMPORTS_PER_SOL),
    );
    return keypair;
  }

  async storageTokens(owner: PublicKey, amount: bigint | number): Promise<string> {
    const reply = await this.rpc('tape_requestStorageTokens', [owner.toBase58(), String(amount)]);
    if (reply.error) throw new Error(reply.error.message);
    await this.confirm(reply.result as string);
    return reply.result as string;
  }

  async networkConfig(): Promise<NetworkConfig> {
    const info = await this.connection.getAccountInfo(this.pdas.config());
    if (!info) throw new Error('no config account');
    return decodeConfig(info.data);
  }

  async tokenBalance(owner: PublicKey): Promise<bigint> {
    const { mint } = await this.networkConfig();
    const info = await this.connection.getAccountInfo(associatedTokenAddress(owner, mint));
    return info ? decodeTokenAccount(info.data).amount : 0n;
  }

  /** Signs with the given signers (the first pays) and returns the base64 wire bytes. */
  async signed(
    instructions: TransactionInstruction[],
    signers: Keypair[],
    blockhash?: string,
  ): Promise<string> {
    const tx = new Transaction({
      feePayer: signers[0].publicKey,
      recentBlockhash: blockhash ?? (await this.connection.getLatestBlockhash()).blockhash,
    }).add(...instructions);
    tx.sign(...signers);
    return tx.serialize().toString('base64');
  }

  /** A new System account of `space` zero bytes, rent-exempt, paid by `payer`. */
  async systemAccount(payer: Keypair, space: number): Promise<PublicKey> {
    const account = Keypair.generate();
    await this.send(
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: account.publicKey,
          lamports: await this.connection.getMinimumBalanceForRentExemption(space),
          space,
          programId: SystemProgram.programId,
        }),
      ],
      [payer, account],
    );
    return account.publicKey;
  }

  /** sendAndConfirmTransaction from web3.js, unchanged. */
  async send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> {
    return sendAndConfirmTransaction(
      this.connection,
      new Transaction().add(...instructions),
      signers,
    );
  }

  /** Sends with preflight and returns the JSON-RPC error the node answers (fails if none). */
  async sendExpectingError(
    instructions: TransactionInstruction[],
    signers: Keypair[],
  ): Promise<RpcErrorBody> {
    const reply = await this.rpc('sendTransaction', [
      await this.signed(instructions, signers),
      { encoding: 'base64' },
    ]);
    if (!reply.error) throw new Error(`expected an error, got ${JSON.stringify(reply.result)}`);
    return reply.error;
  }
}
