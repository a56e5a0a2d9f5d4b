import { Keypair, PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeKeypair } from '../src/chain/keypair-file';
import { embeddedProgramVersion, programVersionText } from '../src/chain/program-version';
import { PROGRAMDATA_METADATA_SIZE, programDataAddress } from '../src/chain/upgradeable-loader';
import { REPO_ROOT } from './support/processes/gateway';
import { NetworkOperator, startNetworkOperator } from './support/labs/network-operator';
import { startRpcFaultProxy } from './support/proxies/rpc-fault-proxy';
import { buildLoggingProgram } from './support/fixtures/sbf-program';

/** `tape network status --json`. */
interface StatusJson {
  program_id: string;
  program_data: string;
  deployed: {
    elf_bytes: number;
    sha256: string;
    version: string | null;
    upgrade_authority: string | null;
    final: boolean;
    max_data_len: number;
    slot: number;
  } | null;
  local: { path: string; bytes: number; sha256: string; version: string | null };
  matches_local: boolean;
}

const ELF = readFileSync(join(REPO_ROOT, 'program', 'tape.so'));
const VERSION = programVersionText(embeddedProgramVersion(ELF))!;
/** Never newer than a real build: 0.0.0 is older than (or equal to) any version. */
const OLDER = '0.0.0';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Issue 34, finding 6: `tape network deploy` must not silently put an older build over a newer
 * one, `tape network status` reads the deployed version back from the chain, and the upgrade
 * authority defaults to the wallet only on the local network. The built CLI against the local
 * network as a standalone process (the real BPF Upgradeable Loader under litesvm).
 */
describe('tape network deploy: versions and the upgrade authority; tape network status', () => {
  let lab: NetworkOperator;

  beforeAll(async () => {
    lab = await startNetworkOperator(100);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  const programKeypair = () => lab.programKeypair();
  const program = (name: string, message: string, version?: string) => {
    const path = join(lab.dir, name);
    writeFileSync(path, buildLoggingProgram(message, version));
    return path;
  };
  /** `tape network deploy --program <elf> --program-id <id> …`: an upgrade of `id`. */
  const upgradeArgs = (id: PublicKey, elf: string, ...more: string[]) => [
    'network',
    'deploy',
    '--program',
    elf,
    '--program-id',
    id.toBase58(),
    ...more,
  ];
  const status = (id: PublicKey, args: string[] = []) =>
    lab.operator.json<StatusJson>(['network', 'status', '--program-id', id.toBase58(), ...args]);
  const programBytes = async (id: PublicKey) =>
    (await lab.connection.getAccountInfo(programDataAddress(id)))!.data.subarray(
      PROGRAMDATA_METADATA_SIZE,
    );

  it('refuses an older or unversioned build over a newer one, in one line, before anything is sent; --allow-downgrade does it', async () => {
    const { id, path } = programKeypair();
    await lab.operator.ok(['network', 'deploy', '--program-keypair', path]);
    const older = program('older.so', 'an older build', OLDER);
    const unversioned = program('unversioned.so', 'an unversioned build');
    const before = await lab.connection.getBalance(lab.payer.publicKey);

    const refused = await lab.operator.run(upgradeArgs(id, older));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      `error: program ${id.toBase58()} runs version ${VERSION} and this build is version ${OLDER}, not newer: refusing to replace it (pass --allow-downgrade to do it anyway)`,
    );
    expect(await lab.operator.fails(upgradeArgs(id, unversioned))).toBe(
      `program ${id.toBase58()} runs version ${VERSION} and this build is an unversioned build, not newer: refusing to replace it (pass --allow-downgrade to do it anyway)`,
    );
    // Nothing was signed: no buffer, no fee, the program unchanged.
    expect(await lab.connection.getBalance(lab.payer.publicKey)).toBe(before);
    expect((await programBytes(id)).subarray(0, ELF.length).equals(ELF)).toBe(true);

    const forced = await lab.operator.run(upgradeArgs(id, older, '--allow-downgrade', '--json'));
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({
      action: 'upgraded',
      version: OLDER,
      previous_version: VERSION,
    });
    expect(forced.stderr).toContain(
      `replacing version ${VERSION} with a build that is not newer (--allow-downgrade)`,
    );
    const olderElf = readFileSync(older);
    expect((await programBytes(id)).subarray(0, olderElf.length).equals(olderElf)).toBe(true);

    // The committed build is newer than 0.0.0: it goes back on without the flag.
    const back = await lab.operator.json<{ action: string; version: string }>([
      'network',
      'deploy',
      '--program-id',
      id.toBase58(),
    ]);
    expect(back).toMatchObject({ action: 'upgraded', version: VERSION });
  });

  it('tape network status reads the deployed ELF, its version and authority back from the chain', async () => {
    const { id, path } = programKeypair();
    const none = await status(id);
    expect(none).toMatchObject({ program_id: id.toBase58(), deployed: null, matches_local: false });

    await lab.operator.ok(['network', 'deploy', '--program-keypair', path]);
    const deployed = await status(id);
    expect(deployed).toEqual({
      program_id: id.toBase58(),
      program_data: programDataAddress(id).toBase58(),
      deployed: {
        elf_bytes: ELF.length,
        sha256: sha256(ELF),
        version: VERSION,
        upgrade_authority: lab.payer.publicKey.toBase58(),
        final: false,
        max_data_len: 2 * ELF.length,
        slot: expect.any(Number) as number,
      },
      local: {
        path: join(REPO_ROOT, 'program', 'tape.so'),
        bytes: ELF.length,
        sha256: sha256(ELF),
        version: VERSION,
      },
      matches_local: true,
    });

    const lines = await lab.operator.ok(['network', 'status', '--program-id', id.toBase58()]);
    expect(lines).toContain(`version:           ${VERSION}\n`);
    expect(lines).toContain(`deployed ELF:      ${ELF.length} bytes, sha256 ${sha256(ELF)}\n`);
    expect(lines).toContain(`upgrade authority: ${lab.payer.publicKey.toBase58()}\n`);
    expect(lines).toContain('matches local:     yes\n');

    // Another local build: not what runs there.
    const other = program('status-other.so', 'not deployed', OLDER);
    const compared = await status(id, ['--program', other]);
    expect(compared).toMatchObject({ matches_local: false, local: { version: OLDER } });
    expect(compared.deployed!.version).toBe(VERSION);
  });

  it('requires --upgrade-authority on a cluster that is not the local network', async () => {
    const { id, path } = programKeypair();
    const cold = Keypair.generate();
    const coldPath = join(lab.dir, 'cold-authority.json');
    writeKeypair(coldPath, cold);
    // The same node seen through a proxy that lacks the local network's faucet method, as
    // every other Solana node does: to the CLI it is another cluster.
    const proxy = await startRpcFaultProxy(lab.net.rpcUrl, (request) =>
      request.method === 'tape_requestStorageTokens' ? 'unknown-method' : 'forward',
    );
    try {
      const before = await lab.connection.getBalance(lab.payer.publicKey);
      expect(
        await lab.operator.fails(['network', 'deploy', '--program-keypair', path, '-u', proxy.url]),
      ).toBe(
        `${proxy.url} is not the local network (it has no local-network faucet): name the upgrade authority with --upgrade-authority <keypair> (a cold key, not the wallet; docs/operator.md)`,
      );
      expect(await lab.connection.getAccountInfo(id)).toBeNull();
      expect(await lab.connection.getBalance(lab.payer.publicKey)).toBe(before);

      const out = await lab.operator.json<{ action: string; upgrade_authority: string }>([
        'network',
        'deploy',
        '--program-keypair',
        path,
        '--upgrade-authority',
        coldPath,
        '-u',
        proxy.url,
      ]);
      expect(out).toMatchObject({
        action: 'deployed',
        upgrade_authority: cold.publicKey.toBase58(),
      });
    } finally {
      await proxy.close();
    }
    expect((await status(id)).deployed!.upgrade_authority).toBe(cold.publicKey.toBase58());
  }, 60_000);
});
