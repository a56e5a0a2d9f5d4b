import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, PublicKey } from '@solana/web3.js';
import { ChainError } from '../../chain/chain-error';
import { writeKeypair } from '../../chain/keypair-file';
import { tapeProgramElfPath } from '../../localnet/svm/tape-program-elf';
import { CliError } from '../cli-error';
import { RecordingPrinter } from '../output/recording-printer';
import { CliSigners } from '../session/cli-signers';
import { CliTarget } from '../session/cli-target';
import { testCliChain } from '../session/cli-chain.spec-support';
import { DeployRequest, DeployResult, ProgramDeployer } from './program-deployer';
import { InterruptNotice } from '../session/interrupt-notice';
import { INTERRUPTED, ProgramDeployments } from './program-deployment';

const RPC_URL = 'http://127.0.0.1:18999';

function newTestService(opts: { explicitProgramId?: PublicKey; deployFails?: Error } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tape-program-deployment-'));
  const wallet = Keypair.generate();
  const programKeypair = Keypair.generate();
  const authority = Keypair.generate();
  const files = {
    programKeypair: join(dir, 'program.json'),
    authority: join(dir, 'authority.json'),
  };
  writeKeypair(files.programKeypair, programKeypair);
  writeKeypair(files.authority, authority);
  const interrupt = new InterruptNotice();
  const requests: DeployRequest[] = [];
  const notes: (string | undefined)[] = [];
  const programData = Keypair.generate().publicKey;
  const deployer = {
    deploy: (req: DeployRequest): Promise<DeployResult> => {
      requests.push(req);
      notes.push(interrupt.current);
      req.progress.step('creating buffer');
      if (opts.deployFails) return Promise.reject(opts.deployFails);
      return Promise.resolve({ programId: req.programId, programData } as DeployResult);
    },
  };
  // The payer's balance before and after the deploy; the program's two accounts' rent after.
  const balances = [5_000_000_000, 3_000_000_000];
  const rpc = {
    getBalance: () => Promise.resolve(balances.shift()!),
    getMultipleAccountsInfo: (keys: PublicKey[]) =>
      Promise.resolve(
        keys.map((k) => ({ lamports: k.equals(programData) ? 1_500_000_000 : 1_141_440 })),
      ),
  };
  const target = {
    rpcUrl: RPC_URL,
    computeUnitPrice: 7,
    explicitProgramId: () => opts.explicitProgramId,
    programId: Keypair.generate().publicKey,
  };
  const printer = new RecordingPrinter();
  const sut = new ProgramDeployments(
    deployer as unknown as ProgramDeployer,
    printer,
    interrupt,
    target as unknown as CliTarget,
    testCliChain({ rpc: { connection: rpc, ping: () => Promise.resolve() } }, RPC_URL),
    { wallet: () => wallet } as unknown as CliSigners,
  );
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  return {
    sut,
    interrupt,
    notes,
    printer,
    requests,
    files,
    programKeypair,
    authority,
    wallet,
    cleanup,
  };
}

describe('ProgramDeployments', () => {
  it('deploys the committed ELF under the program keypair, signed by the named authority, and reports what it cost', async () => {
    const t = newTestService();
    try {
      const deployment = await t.sut.deploy({
        programKeypair: t.files.programKeypair,
        upgradeAuthority: t.files.authority,
        maxLen: 400_000,
        final: true,
      });
      expect(t.requests).toHaveLength(1);
      const req = t.requests[0];
      expect(req.programId).toEqual(t.programKeypair.publicKey);
      expect(req.programKeypair?.publicKey).toEqual(t.programKeypair.publicKey);
      expect(req.payer).toBe(t.wallet);
      expect(req.authority.publicKey).toEqual(t.authority.publicKey);
      expect(req).toMatchObject({
        rpcUrl: RPC_URL,
        maxDataLen: 400_000,
        final: true,
        allowDowngrade: false,
        computeUnitPrice: 7,
      });
      expect(deployment.path).toBe(tapeProgramElfPath());
      expect(deployment.spent).toBe(2_000_000_000);
      expect(deployment.rent).toEqual({ program: 1_141_440, programData: 1_500_000_000 });
      // Progress goes to stderr as notes (no terminal here): stdout keeps the result.
      expect(t.printer.notes).toEqual(['creating buffer']);
      expect(t.printer.out).toEqual([]);
      // Ctrl-C while it ran would have said how to finish (src/cli.ts prints it); not after.
      expect(t.notes).toEqual([INTERRUPTED]);
      expect(t.interrupt.current).toBeUndefined();
    } finally {
      t.cleanup();
    }
  });

  it('refuses a program keypair that is not the configured program id, before anything is sent', async () => {
    const configured = Keypair.generate().publicKey;
    const t = newTestService({ explicitProgramId: configured });
    try {
      await expect(
        t.sut.deploy({
          programKeypair: t.files.programKeypair,
          upgradeAuthority: t.files.authority,
        }),
      ).rejects.toThrow(
        new CliError(
          `--program-keypair is for ${t.programKeypair.publicKey.toBase58()} but the program id is ${configured.toBase58()} (from --program-id, TAPE_PROGRAM_ID or the config key program_id)`,
        ),
      );
      expect(t.requests).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it('a failure of the chain is one line naming the RPC URL', async () => {
    const t = newTestService({ deployFails: new Error('fetch failed') });
    try {
      const failure = t.sut.deploy({ upgradeAuthority: t.files.authority });
      await expect(failure).rejects.toBeInstanceOf(ChainError);
      await expect(failure).rejects.toThrow(`cannot reach the chain RPC at ${RPC_URL}`);
    } finally {
      t.cleanup();
    }
  });
});
