import { Injectable } from '@nestjs/common';
import { AccountInfo, Connection, Keypair, PublicKey } from '@solana/web3.js';
import { CONFIG_SIZE, decodeConfig, NetworkConfig } from '../../chain/account-layouts';
import { STORAGE_TOKEN_DECIMALS, TOKEN_PROGRAM_ID } from '../../chain/program-ids';
import { ResendingSender, SenderRpc, TransactionJob } from '../../chain/resending-sender';
import { ResendingSenders } from '../../chain/resending-senders';
import { addressWithSeed } from '../../chain/seeded-address';
import {
  createSeededTokenAccount,
  initializeAccount3,
  initializeMint2,
} from '../../chain/spl-token-instructions';
import {
  decodeMint,
  decodeTokenAccount,
  MINT_SIZE,
  TOKEN_ACCOUNT_SIZE,
} from '../../chain/spl-token-layouts';
import { TapeInstructions } from '../../chain/tape-instructions';
import { CliError } from '../cli-error';

/** The RPC calls an init makes (web3.js's Connection has them all). */
export type InitRpc = SenderRpc &
  Pick<
    Connection,
    'getMultipleAccountsInfo' | 'getMinimumBalanceForRentExemption' | 'getSlot' | 'getBlockTime'
  >;

export interface InitRequest {
  rpc: InitRpc;
  rpcUrl: string;
  /** The tape program's instructions (its id: `ix.programId`). */
  ix: TapeInstructions;
  /** Pays, becomes the Config's admin, the new mint's authority and the treasury's owner. */
  payer: Keypair;
  /** An existing storage-token mint to use instead of creating one. */
  mint?: PublicKey;
  /** Storage-token base units per MiB per epoch. */
  price?: bigint;
  epochDurationSecs?: number;
  /** The key that certifies tracks: the writer gateway's key. */
  storageAuthority?: PublicKey;
  computeUnitPrice?: number;
  progress: (line: string) => void;
}

/** What a step found: made now, already there from an earlier run, or given (`--mint`). */
export type StepOutcome = 'created' | 'existed' | 'reused';

export interface InitResult {
  programId: PublicKey;
  config: PublicKey;
  configOutcome: Exclude<StepOutcome, 'reused'>;
  mint: PublicKey;
  mintOutcome: StepOutcome;
  treasury: PublicKey;
  treasuryOutcome: Exclude<StepOutcome, 'reused'>;
  /** The Config as the chain holds it now. */
  values: NetworkConfig;
  /** Requested values an existing Config does not have (it is never overwritten). */
  differences: string[];
}

/**
 * Sets up the tape program on a cluster where it is deployed: the storage-token mint (created
 * with 6 decimals, or an existing one), the treasury token account that receives payments, and
 * the program's Config through its InitConfig instruction. Each step reads the chain first, and
 * the mint and treasury live at addresses seeded from the payer, so running init again after a
 * crash finds what the first run made and finishes the job.
 */
@Injectable()
export class NetworkInitializer {
  constructor(private readonly senders: ResendingSenders) {}

  async init(req: InitRequest): Promise<InitResult> {
    const { ix } = req;
    const configAddress = ix.pdas.config();
    const [program, existing] = await req.rpc.getMultipleAccountsInfo([
      req.ix.programId,
      configAddress,
    ]);
    if (!program?.executable) {
      throw new CliError(
        `no program at ${req.ix.programId.toBase58()} on ${req.rpcUrl} (deploy it first: tape network deploy)`,
      );
    }
    if (existing) return this.existingConfig(req, configAddress, existing);

    const missing = [
      req.price === undefined ? '--price' : null,
      req.epochDurationSecs === undefined ? '--epoch-duration' : null,
      req.storageAuthority === undefined ? '--storage-authority' : null,
    ].filter((m): m is string => m !== null);
    if (missing.length > 0) {
      throw new CliError(
        `the Config of ${req.ix.programId.toBase58()} does not exist yet; creating it needs ${missing.join(', ')}`,
      );
    }
    const sender = this.senders.sender(req.rpc, 'tape', {
      rpcUrl: req.rpcUrl,
      programId: ix.programId,
      computeUnitPrice: req.computeUnitPrice,
    });
    const mint = await this.mint(req, sender);
    const treasury = await this.treasury(req, sender, mint.address);
    req.progress(`creating the Config ${configAddress.toBase58()}`);
    await sender.sendAll([
      {
        instructions: [
          ix.initConfig({
            admin: req.payer.publicKey,
            mint: mint.address,
            treasury: treasury.address,
            storageAuthority: req.storageAuthority!,
            epochDurationSecs: req.epochDurationSecs!,
            genesisTime: await this.chainTime(req.rpc),
            pricePerMibEpoch: req.price!,
          }),
        ],
        signers: [req.payer],
      },
    ]);
    const [created] = await req.rpc.getMultipleAccountsInfo([configAddress]);
    return {
      programId: req.ix.programId,
      config: configAddress,
      configOutcome: 'created',
      mint: mint.address,
      mintOutcome: mint.outcome,
      treasury: treasury.address,
      treasuryOutcome: treasury.outcome,
      values: this.decode(req, created!),
      differences: [],
    };
  }

  /** An existing Config is reported as it is, with every requested value it does not have. */
  private existingConfig(
    req: InitRequest,
    address: PublicKey,
    account: AccountInfo<Buffer>,
  ): InitResult {
    const values = this.decode(req, account);
    const differences: string[] = [];
    const differ = (what: string, has: string, asked: string | undefined) => {
      if (asked !== undefined && asked !== has) differences.push(`${what} is ${has}, not ${asked}`);
    };
    differ('price', String(values.pricePerMibEpoch), req.price?.toString());
    differ('epoch duration', `${values.epochDurationSecs}s`, optional(req.epochDurationSecs, 's'));
    differ(
      'storage authority',
      values.storageAuthority.toBase58(),
      req.storageAuthority?.toBase58(),
    );
    differ('mint', values.mint.toBase58(), req.mint?.toBase58());
    return {
      programId: req.ix.programId,
      config: address,
      configOutcome: 'existed',
      mint: values.mint,
      mintOutcome: 'existed',
      treasury: values.treasury,
      treasuryOutcome: 'existed',
      values,
      differences,
    };
  }

  private decode(req: InitRequest, account: AccountInfo<Buffer>): NetworkConfig {
    if (!account.owner.equals(req.ix.programId) || account.data.length !== CONFIG_SIZE) {
      throw new CliError(
        `the Config address of ${req.ix.programId.toBase58()} holds an account that is not the program's Config`,
      );
    }
    return decodeConfig(account.data);
  }

  /** The mint given with --mint (checked), else ours at a seeded address, created once. */
  private async mint(
    req: InitRequest,
    sender: ResendingSender,
  ): Promise<{ address: PublicKey; outcome: StepOutcome }> {
    if (req.mint) {
      const [account] = await req.rpc.getMultipleAccountsInfo([req.mint]);
      this.assertMint(req.mint, account);
      req.progress(`using mint ${req.mint.toBase58()}`);
      return { address: req.mint, outcome: 'reused' };
    }
    const seed = `mint-${req.ix.programId.toBase58().slice(0, 27)}`;
    const address = addressWithSeed(req.payer.publicKey, seed, TOKEN_PROGRAM_ID);
    const [account] = await req.rpc.getMultipleAccountsInfo([address]);
    if (account) {
      this.assertMint(address, account);
      req.progress(`found mint ${address.toBase58()} of an earlier run`);
      return { address, outcome: 'existed' };
    }
    req.progress(`creating mint ${address.toBase58()} (6 decimals)`);
    const lamports = await req.rpc.getMinimumBalanceForRentExemption(MINT_SIZE);
    await sender.sendAll([
      this.seededAccount(req, address, seed, MINT_SIZE, lamports, [
        initializeMint2({
          mint: address,
          decimals: STORAGE_TOKEN_DECIMALS,
          mintAuthority: req.payer.publicKey,
        }),
      ]),
    ]);
    return { address, outcome: 'created' };
  }

  /** The treasury: a token account of the mint owned by the payer, at a seeded address. */
  private async treasury(
    req: InitRequest,
    sender: ResendingSender,
    mint: PublicKey,
  ): Promise<{ address: PublicKey; outcome: Exclude<StepOutcome, 'reused'> }> {
    const seed = `treasury-${mint.toBase58().slice(0, 23)}`;
    const address = addressWithSeed(req.payer.publicKey, seed, TOKEN_PROGRAM_ID);
    const [account] = await req.rpc.getMultipleAccountsInfo([address]);
    if (account) {
      const token =
        account.owner.equals(TOKEN_PROGRAM_ID) && account.data.length === TOKEN_ACCOUNT_SIZE
          ? decodeTokenAccount(account.data)
          : null;
      if (!token || !token.mint.equals(mint) || token.state === 0) {
        throw new CliError(
          `account ${address.toBase58()} is not a token account of mint ${mint.toBase58()}`,
        );
      }
      req.progress(`found treasury ${address.toBase58()} of an earlier run`);
      return { address, outcome: 'existed' };
    }
    req.progress(`creating treasury ${address.toBase58()}`);
    const lamports = await req.rpc.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_SIZE);
    await sender.sendAll([
      this.seededAccount(req, address, seed, TOKEN_ACCOUNT_SIZE, lamports, [
        initializeAccount3({ account: address, mint, owner: req.payer.publicKey }),
      ]),
    ]);
    return { address, outcome: 'created' };
  }

  /** Creation and initialization in one transaction: nobody can initialize the account in between. */
  private seededAccount(
    req: InitRequest,
    address: PublicKey,
    seed: string,
    space: number,
    lamports: number,
    init: TransactionJob['instructions'],
  ): TransactionJob {
    return {
      instructions: [
        createSeededTokenAccount({ payer: req.payer.publicKey, address, seed, space, lamports }),
        ...init,
      ],
      signers: [req.payer],
    };
  }

  private assertMint(address: PublicKey, account: AccountInfo<Buffer> | null): void {
    const mint =
      account?.owner.equals(TOKEN_PROGRAM_ID) && account.data.length === MINT_SIZE
        ? decodeMint(account.data)
        : null;
    if (!mint?.isInitialized) {
      throw new CliError(`${address.toBase58()} is not an SPL Token mint`);
    }
    if (mint.decimals !== STORAGE_TOKEN_DECIMALS) {
      throw new CliError(
        `mint ${address.toBase58()} has ${mint.decimals} decimals; the storage token has ${STORAGE_TOKEN_DECIMALS}`,
      );
    }
  }

  /** The chain's clock (block time of the latest slot): epochs count from it. */
  private async chainTime(rpc: InitRpc): Promise<number> {
    const slot = await rpc.getSlot('confirmed');
    const time = await rpc.getBlockTime(slot).catch(() => null);
    return time ?? Math.floor(Date.now() / 1000);
  }
}

function optional(value: number | undefined, unit: string): string | undefined {
  return value === undefined ? undefined : `${value}${unit}`;
}
