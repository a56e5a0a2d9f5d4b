import { PublicKey } from '@solana/web3.js';
import { NetworkKind } from '../../chain/local-network';
import {
  compareProgramVersions,
  formatProgramVersion,
  ProgramVersion,
} from '../../chain/program-version';
import { CliError } from '../cli-error';

/**
 * Why a deployed program may not be replaced by a build, or null when it may: the build must
 * be newer (docs/program.md, "The version"). A build without a version counts as older than
 * any versioned one, and two unversioned builds cannot be compared. An equal version with other
 * bytes is refused too: it is a forgotten bump, or a build that is not the one released under
 * that version.
 */
export function downgradeRefusal(
  programId: PublicKey,
  deployed: ProgramVersion | null,
  candidate: ProgramVersion | null,
): string | null {
  if (deployed && candidate && compareProgramVersions(candidate, deployed) > 0) return null;
  if (!deployed && candidate) return null;
  const named = (v: ProgramVersion | null) =>
    v ? `version ${formatProgramVersion(v)}` : 'an unversioned build';
  const why =
    deployed && candidate && compareProgramVersions(candidate, deployed) === 0
      ? 'the same version with other bytes'
      : 'not newer';
  return `program ${programId.toBase58()} runs ${named(deployed)} and this build is ${named(candidate)}, ${why}: refusing to replace it (pass --allow-downgrade to do it anyway)`;
}

/**
 * The upgrade authority a deploy uses: the wallet on the embedded local network (where keys are
 * throw-away), and on any other cluster only the keypair the operator names. The wallet pays
 * for tapes every day and sits on hot machines; whoever holds the upgrade authority can replace
 * the program that guards every tape (docs/operator.md, "The program's upgrade authority").
 */
export function upgradeAuthoritySource(
  network: NetworkKind,
  rpcUrl: string,
  given: string | undefined,
): { keypairFile: string } | 'wallet' {
  if (given !== undefined) return { keypairFile: given };
  if (network.local) return 'wallet';
  throw new CliError(
    `${rpcUrl} is not the local network (${network.reason}): name the upgrade authority with --upgrade-authority <keypair> (a cold key, not the wallet; docs/operator.md)`,
  );
}
