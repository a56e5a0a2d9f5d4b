import { Injectable } from '@nestjs/common';
import { Connection, PublicKey } from '@solana/web3.js';
import { embeddedProgramVersion, ProgramVersion } from '../../chain/program-version';
import { programDataAddress } from '../../chain/upgradeable-loader';
import { tapeProgramElfPath } from '../../localnet/svm/tape-program-elf';
import { CliChain } from '../session/cli-chain';
import { CliTarget } from '../session/cli-target';
import { DeployedProgram, holdsElf, readDeployedProgram, sha256Hex } from './deployed-program';
import { readProgramFile } from './program-file';

/** An ELF on disk: the committed program/tape.so, or `--program <path>`. */
export interface LocalBuild {
  path: string;
  elf: Buffer;
}

export interface ProgramStatus {
  programId: PublicKey;
  programData: PublicKey;
  /** Null when the address holds no program. */
  deployed: (DeployedProgram & { sha256: string }) | null;
  local: LocalBuild & { sha256: string; version: ProgramVersion | null };
  /** The program holds exactly the local build's bytes. */
  matchesLocal: boolean;
}

/**
 * What runs at a program id, read from the chain alone: the ELF in its program data account
 * (cut at its own length, hashed), the version it embeds, its upgrade authority, and whether it
 * is the local build. One read of two accounts; nothing is signed.
 */
@Injectable()
export class ProgramStatusReader {
  constructor(
    private readonly target: CliTarget,
    private readonly chain: CliChain,
  ) {}

  /** `tape network status`: the target's program, compared with `path` (default: program/tape.so). */
  status(path = tapeProgramElfPath()): Promise<ProgramStatus> {
    const local = { path, elf: readProgramFile(path) };
    const { connection } = this.chain.rpc;
    return this.chain.onCluster(this.read(connection, this.target.programId, local));
  }

  async read(
    rpc: Pick<Connection, 'getMultipleAccountsInfo'>,
    programId: PublicKey,
    local: LocalBuild,
  ): Promise<ProgramStatus> {
    const programData = programDataAddress(programId);
    const [program, data] = await rpc.getMultipleAccountsInfo([programId, programData]);
    const deployed = readDeployedProgram(programId, program, data);
    return {
      programId,
      programData,
      deployed: deployed && { ...deployed, sha256: sha256Hex(deployed.elf) },
      local: { ...local, sha256: sha256Hex(local.elf), version: embeddedProgramVersion(local.elf) },
      matchesLocal: deployed !== null && holdsElf(deployed, local.elf),
    };
  }
}
