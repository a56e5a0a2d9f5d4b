import { Injectable } from '@nestjs/common';
import { Keypair, PublicKey } from '@solana/web3.js';
import { readKeypair } from '../../chain/keypair-file';
import { probeLocalNetwork } from '../../chain/local-network';
import { tapeProgramElfPath } from '../../localnet/svm/tape-program-elf';
import { CliError } from '../cli-error';
import { Printer } from '../output/printer';
import { CliChain } from '../session/cli-chain';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { InterruptNotice } from '../session/interrupt-notice';
import { DeployResult, ProgramDeployer } from './program-deployer';
import { readProgramFile } from './program-file';
import { upgradeAuthoritySource } from './upgrade-policy';
import { PlainWriteProgress, TerminalWriteProgress } from './write-progress';

/**
 * Ctrl-C during a deploy: the program changes in one transaction (deploy or upgrade), and the
 * buffer keeps what was written (program-deployer.ts), so a second run finishes the job.
 */
export const INTERRUPTED =
  'interrupted: the program is as it was or wholly the new build (it changes in one transaction); ' +
  'run tape network deploy again with the same options to finish: chunks already in the buffer are not written again';

/** `tape network deploy`'s options, parsed. */
export interface ProgramDeployOptions {
  /** The ELF (default: the committed program/tape.so). */
  program?: string;
  programKeypair?: string;
  upgradeAuthority?: string;
  maxLen?: number;
  final?: boolean;
  allowDowngrade?: boolean;
}

export interface ProgramDeployment {
  /** The ELF's path, as deployed. */
  path: string;
  result: DeployResult;
  /** Lamports the payer spent: rent and fees. */
  spent: number;
  /** Rent the program's two accounts now hold. */
  rent: { program: number; programData: number };
}

/**
 * `tape network deploy` for one invocation: the ELF, the program id (the program keypair's, which
 * `--program-id` must agree with), the upgrade authority (the wallet on the local network, else
 * only a keypair named by `--upgrade-authority`), then ProgramDeployer with progress on stderr,
 * and what the run cost.
 */
@Injectable()
export class ProgramDeployments {
  constructor(
    private readonly deployer: ProgramDeployer,
    private readonly printer: Printer,
    private readonly interrupt: InterruptNotice,
    private readonly target: CliTarget,
    private readonly chain: CliChain,
    private readonly signers: CliSigners,
  ) {}

  async deploy(options: ProgramDeployOptions): Promise<ProgramDeployment> {
    const path = options.program ?? tapeProgramElfPath();
    const elf = readProgramFile(path);
    const programKeypair = options.programKeypair ? readKeypair(options.programKeypair) : null;
    const programId = programIdOf(this.target, programKeypair);
    const payer = this.signers.wallet();
    const authority = await upgradeAuthority(this.target.rpcUrl, options.upgradeAuthority, payer);
    const rpc = this.chain.rpc.connection;
    const terminal = this.printer.terminal();
    const progress = terminal
      ? new TerminalWriteProgress(terminal)
      : new PlainWriteProgress((line) => this.printer.note(line));

    const work = async (): Promise<ProgramDeployment> => {
      const before = await rpc.getBalance(payer.publicKey);
      const result = await this.deployer.deploy({
        rpc,
        rpcUrl: this.target.rpcUrl,
        elf,
        programId,
        programKeypair,
        payer,
        authority,
        maxDataLen: options.maxLen,
        final: options.final === true,
        allowDowngrade: options.allowDowngrade === true,
        computeUnitPrice: this.target.computeUnitPrice,
        progress,
      });
      const [program, data] = await rpc.getMultipleAccountsInfo([programId, result.programData]);
      const after = await rpc.getBalance(payer.publicKey);
      return {
        path,
        result,
        spent: before - after,
        rent: { program: program?.lamports ?? 0, programData: data?.lamports ?? 0 },
      };
    };
    return this.interrupt.during(INTERRUPTED, () => this.chain.onCluster(work()));
  }
}

/** The wallet on the local network; elsewhere only a keypair named by --upgrade-authority. */
async function upgradeAuthority(
  rpcUrl: string,
  given: string | undefined,
  payer: Keypair,
): Promise<Keypair> {
  const network = given === undefined ? await probeLocalNetwork(rpcUrl) : { local: true as const };
  const source = upgradeAuthoritySource(network, rpcUrl, given);
  return source === 'wallet' ? payer : readKeypair(source.keypairFile);
}

/** The id is the program keypair's; `--program-id` (or the configured id) must agree with it. */
function programIdOf(target: CliTarget, keypair: Keypair | null): PublicKey {
  const configured = target.explicitProgramId();
  if (keypair && configured && !configured.equals(keypair.publicKey)) {
    throw new CliError(
      `--program-keypair is for ${keypair.publicKey.toBase58()} but the program id is ${configured.toBase58()} (from --program-id, TAPE_PROGRAM_ID or the config key program_id)`,
    );
  }
  return keypair?.publicKey ?? target.programId;
}
