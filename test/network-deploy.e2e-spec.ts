import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedProgramVersion, programVersionText } from '../src/chain/program-version';
import { readKeypair, writeKeypair } from '../src/chain/keypair-file';
import {
  BUFFER_METADATA_SIZE,
  decodeLoaderState,
  PROGRAMDATA_METADATA_SIZE,
  programDataAddress,
  UPGRADEABLE_LOADER_ID,
} from '../src/chain/upgradeable-loader';
import { CliUser } from './support/clients/cli';
import { REPO_ROOT } from './support/processes/gateway';
import { LocalnetClient } from './support/clients/localnet-client';
import { LocalnetProcess } from './support/processes/localnet';
import { NetworkOperator, startNetworkOperator } from './support/labs/network-operator';
import { RpcRequest, startRpcFaultProxy } from './support/proxies/rpc-fault-proxy';
import { buildLoggingProgram } from './support/fixtures/sbf-program';

/** `tape network deploy --json`. */
interface DeployJson {
  program_id: string;
  program_data: string;
  action: 'deployed' | 'upgraded' | 'unchanged';
  upgrade_authority: string | null;
  final: boolean;
  elf: { path: string; bytes: number };
  version: string | null;
  previous_version: string | null;
  max_data_len: number;
  buffer: string | null;
  chunks: { total: number; written: number; resumed: number };
  rent_lamports: { program: number; program_data: number };
  spent_lamports: number;
}

const ELF = readFileSync(join(REPO_ROOT, 'program', 'tape.so'));
/** The committed build's version, and one newer (an upgrade must be newer). */
const VERSION = embeddedProgramVersion(ELF)!;
const NEWER = `${VERSION.major + 1}.0.0`;
const SIGNATURE_FEE = 5000;

/** A loader Write (variant 1) inside a sendTransaction: the chunks a deploy streams. */
function isBufferWrite(request: RpcRequest): boolean {
  if (request.method !== 'sendTransaction') return false;
  const tx = Transaction.from(Buffer.from(String(request.params[0]), 'base64'));
  return tx.instructions.some(
    (ix) => ix.programId.equals(UPGRADEABLE_LOADER_ID) && ix.data.readUInt32LE(0) === 1,
  );
}

/**
 * `tape network deploy` as a subprocess of the built CLI against the local network (the
 * standalone process: the real BPF Upgradeable Loader under litesvm). Each test deploys the
 * committed program/tape.so under a fresh program id, as an operator would on devnet.
 */
describe('tape network deploy', () => {
  let lab: NetworkOperator;
  let net: LocalnetProcess;
  let operator: CliUser;
  let payer: Keypair;
  let connection: Connection;
  let dir: string;
  const figures: string[] = [];

  beforeAll(async () => {
    lab = await startNetworkOperator(1000);
    ({ net, operator, payer, connection, dir } = lab);
  });
  afterAll(async () => {
    if (figures.length > 0) console.log(figures.join('\n'));
    await lab?.stop();
  });

  const programKeypair = () => lab.programKeypair();
  /**
   * `who` deploys other bytes at `id` and is refused: the program's upgrade authority is
   * `authority`, not `signer`, and the message says how to pass it.
   */
  const expectOtherAuthority = async (
    who: CliUser,
    elf: string,
    id: PublicKey,
    authority: PublicKey,
    signer: PublicKey,
  ) =>
    expect(
      await who.fails(['network', 'deploy', '--program', elf, '--program-id', id.toBase58()]),
    ).toBe(
      `program ${id.toBase58()} holds other bytes and its upgrade authority is ${authority.toBase58()}, not ${signer.toBase58()} (pass it with --upgrade-authority <keypair>)`,
    );
  const deploy = (args: string[]) => operator.json<DeployJson>(['network', 'deploy', ...args]);
  /** The program's bytes in its program data account (the ELF, then zeros up to the max length). */
  const programBytes = async (id: PublicKey) => {
    const info = await connection.getAccountInfo(programDataAddress(id));
    return info!.data.subarray(PROGRAMDATA_METADATA_SIZE);
  };
  /** Calls the program with no accounts and no data (simulated); returns its log lines. */
  const call = async (id: PublicKey) => {
    // A versioned transaction: web3.js would put its own cached blockhash into a legacy one,
    // and the local network's blockhashes expire after 150 blocks of 50 ms.
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: PublicKey.default.toBase58(),
      instructions: [
        new TransactionInstruction({ programId: id, keys: [], data: Buffer.alloc(0) }),
      ],
    }).compileToLegacyMessage();
    const { value } = await connection.simulateTransaction(new VersionedTransaction(message), {
      replaceRecentBlockhash: true,
      sigVerify: false,
    });
    return value.logs ?? [];
  };
  const sol = (lamports: number) => (lamports / LAMPORTS_PER_SOL).toFixed(9);

  it('deploys program/tape.so under a new program id, runs it, measures what it cost; a second run changes nothing', async () => {
    const { id, path } = programKeypair();
    const before = await connection.getBalance(payer.publicKey);
    const out = await deploy(['--program-keypair', path]);
    expect(out).toMatchObject({
      program_id: id.toBase58(),
      program_data: programDataAddress(id).toBase58(),
      action: 'deployed',
      upgrade_authority: payer.publicKey.toBase58(),
      final: false,
      elf: { bytes: ELF.length },
      max_data_len: 2 * ELF.length,
    });
    // Chunks fill a 1232-byte transaction: between 900 and 1000 bytes each.
    expect(out.chunks.total).toBe(Math.ceil(ELF.length / Math.ceil(ELF.length / out.chunks.total)));
    expect(ELF.length / out.chunks.total).toBeGreaterThan(900);
    expect(ELF.length / out.chunks.total).toBeLessThanOrEqual(1000);
    expect(out.chunks.resumed + out.chunks.written).toBe(out.chunks.total);

    const program = await connection.getAccountInfo(id);
    expect(program!.executable).toBe(true);
    expect(program!.owner.equals(UPGRADEABLE_LOADER_ID)).toBe(true);
    const code = await programBytes(id);
    expect(code.length).toBe(2 * ELF.length);
    expect(code.subarray(0, ELF.length).equals(ELF)).toBe(true);
    expect(code.subarray(ELF.length).every((b) => b === 0)).toBe(true);
    expect(await call(id)).toContain('Program log: Error: unexpected end of data');

    // What it cost, measured: the rent it locked up and the fees, nothing else.
    const after = await connection.getBalance(payer.publicKey);
    expect(out.spent_lamports).toBe(before - after);
    const rent = (bytes: number) => connection.getMinimumBalanceForRentExemption(bytes);
    expect(out.rent_lamports.program_data).toBe(
      await rent(PROGRAMDATA_METADATA_SIZE + 2 * ELF.length),
    );
    expect(out.rent_lamports.program).toBe(await rent(36));
    const fees = out.spent_lamports - out.rent_lamports.program - out.rent_lamports.program_data;
    // The buffer (one signature), each write (one), the deploy (payer and program keypair).
    const transactions = 1 + out.chunks.written + 1;
    expect(fees).toBe((transactions + 1) * SIGNATURE_FEE);
    const bufferRent = await rent(BUFFER_METADATA_SIZE + ELF.length);
    figures.push(
      `tape network deploy of program/tape.so (${ELF.length} bytes, max len ${2 * ELF.length}) on the local network:`,
      `  program data rent  ${sol(out.rent_lamports.program_data)} SOL (${PROGRAMDATA_METADATA_SIZE + 2 * ELF.length} bytes)`,
      `  program rent       ${sol(out.rent_lamports.program)} SOL (36 bytes)`,
      `  buffer rent        ${sol(bufferRent)} SOL (${BUFFER_METADATA_SIZE + ELF.length} bytes, returned at deploy)`,
      `  fees               ${sol(fees)} SOL (${transactions} transactions, ${out.chunks.written} of them writes)`,
      `  spent              ${sol(out.spent_lamports)} SOL; the payer needs ${sol(out.spent_lamports + bufferRent)} SOL while it runs`,
    );

    const again = await deploy(['--program-keypair', path]);
    expect(again).toMatchObject({ action: 'unchanged', spent_lamports: 0, buffer: null });
  });

  /**
   * A first deploy through a proxy that forwards `forwarded` buffer writes, then holds
   * everything while the CLI is sent `signal` (SIGKILL: a crash; SIGINT: Ctrl-C).
   */
  const deployStoppedWhileWriting = async (
    path: string,
    forwarded: number,
    signal: NodeJS.Signals,
  ) => {
    let writes = 0;
    let cli: ChildProcess | undefined;
    const proxy = await startRpcFaultProxy(net.rpcUrl, (request) => {
      if (writes >= forwarded) return 'hold';
      if (isBufferWrite(request) && ++writes === forwarded) {
        setTimeout(() => cli?.kill(signal), 300);
      }
      return 'forward';
    });
    try {
      return await operator.run(['network', 'deploy', '--program-keypair', path, '-u', proxy.url], {
        onStderr: (_text, child) => (cli = child),
      });
    } finally {
      await proxy.close();
    }
  };

  it('finishes a deploy killed while it wrote the buffer, writing only the chunks the buffer lacks', async () => {
    const { id, path } = programKeypair();
    const FORWARDED = 12;
    // After 12 writes the network swallows everything and the CLI is killed: a crash mid-way.
    const killed = await deployStoppedWhileWriting(path, FORWARDED, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stderr).toContain('writing ');
    expect(await connection.getAccountInfo(id)).toBeNull();

    const resumed = await operator.run(['network', 'deploy', '--program-keypair', path, '--json']);
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as DeployJson;
    expect(resumed.stderr).toContain(`found buffer ${out.buffer} of an earlier run`);
    expect(resumed.stderr).toMatch(
      new RegExp(
        `resuming: ${out.chunks.resumed} of ${out.chunks.total} chunks already in the buffer`,
      ),
    );
    expect(out.action).toBe('deployed');
    expect(out.chunks.resumed).toBeGreaterThanOrEqual(FORWARDED);
    expect(out.chunks.written).toBe(out.chunks.total - out.chunks.resumed);
    // The buffer was closed into the payer by the deploy.
    expect(await connection.getAccountInfo(new PublicKey(out.buffer!))).toBeNull();
    expect((await programBytes(id)).subarray(0, ELF.length).equals(ELF)).toBe(true);
    expect(await call(id)).toContain('Program log: Error: unexpected end of data');
  });

  it('Ctrl-C while it writes the buffer exits 130 with the line that says how to finish; the next run does', async () => {
    const { id, path } = programKeypair();
    const FORWARDED = 8;
    const interrupted = await deployStoppedWhileWriting(path, FORWARDED, 'SIGINT');
    expect(interrupted.code).toBe(130);
    expect(interrupted.stdout).toBe('');
    expect(interrupted.stderr).toContain('writing ');
    expect(interrupted.stderr.trimEnd().split('\n').pop()).toBe(
      'interrupted: the program is as it was or wholly the new build (it changes in one transaction); ' +
        'run tape network deploy again with the same options to finish: chunks already in the buffer are not written again',
    );
    expect(await connection.getAccountInfo(id)).toBeNull();

    const resumed = await operator.run(['network', 'deploy', '--program-keypair', path, '--json']);
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as DeployJson;
    expect(out.action).toBe('deployed');
    expect(out.chunks.resumed).toBeGreaterThanOrEqual(FORWARDED);
    expect((await programBytes(id)).subarray(0, ELF.length).equals(ELF)).toBe(true);
  });

  it('re-sends the writes the network lost', async () => {
    const { id, path } = programKeypair();
    let writes = 0;
    const lost: number[] = [];
    const proxy = await startRpcFaultProxy(net.rpcUrl, (request) => {
      if (!isBufferWrite(request)) return 'forward';
      writes++;
      if (writes <= 40 && writes % 7 === 0) {
        lost.push(writes);
        return 'drop';
      }
      return 'forward';
    });
    try {
      const out = await operator.json<DeployJson>([
        'network',
        'deploy',
        '--program-keypair',
        path,
        '-u',
        proxy.url,
      ]);
      expect(out.action).toBe('deployed');
      expect(lost.length).toBeGreaterThan(3);
      // Each lost write was sent again (re-signed: a new transaction).
      expect(writes).toBe(out.chunks.written + lost.length);
    } finally {
      await proxy.close();
    }
    expect((await programBytes(id)).subarray(0, ELF.length).equals(ELF)).toBe(true);
  }, 60_000);

  it('upgrades to other bytes, pays the priority fee asked for, and --final makes it immutable', async () => {
    const { id, path } = programKeypair();
    const PRICE = 1000; // micro-lamports per compute unit
    const first = await deploy([
      '--program-keypair',
      path,
      '--with-compute-unit-price',
      String(PRICE),
    ]);
    const fees =
      first.spent_lamports - first.rent_lamports.program - first.rent_lamports.program_data;
    const transactions = 1 + first.chunks.written + 1;
    // ceil(1000 x limit / 10^6) per transaction: writes 5,300 units (6 lamports), the buffer's
    // creation 8,300 (9), the deploy 13,300 (14). Each transaction's limit is raised by its own
    // number below 4,096 (so repeated writes are distinct transactions): up to 4 lamports more.
    const priority = fees - (transactions + 1) * SIGNATURE_FEE;
    const lowest = 6 * first.chunks.written + 9 + 14;
    const raised = (units: number) => Math.ceil((PRICE * (units + 4095)) / 1e6);
    const highest = raised(5300) * first.chunks.written + raised(8300) + raised(13300);
    expect(priority).toBeGreaterThanOrEqual(lowest);
    expect(priority).toBeLessThanOrEqual(highest);
    figures.push(
      `  with --with-compute-unit-price ${PRICE}: ${priority} lamports of priority fees`,
    );

    const other = buildLoggingProgram('upgraded by tape network deploy', NEWER);
    const otherPath = join(dir, 'other.so');
    writeFileSync(otherPath, other);
    const up = await deploy(['--program', otherPath, '--program-id', id.toBase58()]);
    expect(up).toMatchObject({
      action: 'upgraded',
      max_data_len: 2 * ELF.length,
      upgrade_authority: payer.publicKey.toBase58(),
      version: NEWER,
      previous_version: programVersionText(VERSION),
    });
    const code = await programBytes(id);
    expect(code.subarray(0, other.length).equals(other)).toBe(true);
    expect(code.subarray(other.length).every((b) => b === 0)).toBe(true);
    expect(await call(id)).toContain('Program log: upgraded by tape network deploy');
    // The upgrade's buffer rent came back (the spill account is the payer): fees only.
    expect(up.spent_lamports).toBe((up.chunks.written + 1 + 1) * SIGNATURE_FEE);

    const final = await deploy(['--program', otherPath, '--program-id', id.toBase58(), '--final']);
    expect(final).toMatchObject({ action: 'unchanged', final: true, upgrade_authority: null });
    const header = decodeLoaderState(
      (await connection.getAccountInfo(programDataAddress(id)))!.data,
    );
    expect(header).toMatchObject({ kind: 'programData', upgradeAuthority: null });

    expect(await operator.fails(['network', 'deploy', '--program-id', id.toBase58()])).toBe(
      `program ${id.toBase58()} holds other bytes and is final (no upgrade authority): it cannot be upgraded`,
    );
    expect(await deploy(['--program', otherPath, '--program-id', id.toBase58()])).toMatchObject({
      action: 'unchanged',
      final: true,
    });
  });

  it('deploys with another upgrade authority, to an address someone already sent lamports to', async () => {
    const { id, path } = programKeypair();
    const authority = Keypair.generate();
    const authorityPath = join(dir, 'authority.json');
    writeKeypair(authorityPath, authority);
    // A gift at the program id does not block the deploy: the account is topped up and allocated.
    const client = new LocalnetClient(net.rpcUrl, net.wsUrl);
    try {
      await client.send(
        [
          SystemProgram.transfer({
            fromPubkey: payer.publicKey,
            toPubkey: id,
            lamports: 1_000_000,
          }),
        ],
        [payer],
      );
    } finally {
      client.close();
    }
    const out = await deploy(['--program-keypair', path, '--upgrade-authority', authorityPath]);
    expect(out).toMatchObject({
      action: 'deployed',
      upgrade_authority: authority.publicKey.toBase58(),
    });
    expect(out.rent_lamports.program).toBe(await connection.getMinimumBalanceForRentExemption(36));
    expect(await call(id)).toContain('Program log: Error: unexpected end of data');

    const otherPath = join(dir, 'authority-upgrade.so');
    writeFileSync(otherPath, buildLoggingProgram('upgraded by another authority', NEWER));
    await expectOtherAuthority(operator, otherPath, id, authority.publicKey, payer.publicKey);
    const up = await deploy([
      '--program',
      otherPath,
      '--program-id',
      id.toBase58(),
      '--upgrade-authority',
      authorityPath,
    ]);
    expect(up.action).toBe('upgraded');
    expect(await call(id)).toContain('Program log: upgraded by another authority');
  });

  it('fails with one clear line on bad input, before anything is sent', async () => {
    const { id, path } = programKeypair();
    const notElf = join(dir, 'index.html');
    writeFileSync(notElf, '<!doctype html><title>not a program</title>');
    const missing = join(dir, 'missing.json');

    expect(await operator.fails(['network', 'deploy', '--program-keypair', missing])).toBe(
      `no keypair at ${missing}`,
    );
    expect(
      await operator.fails(['network', 'deploy', '--program', notElf, '--program-keypair', path]),
    ).toBe(`${notElf} is not a Solana program: not an ELF file`);
    expect(await operator.fails(['network', 'deploy', '--program', join(dir, 'nope.so')])).toBe(
      `no program at ${join(dir, 'nope.so')}`,
    );
    expect(
      await operator.fails([
        'network',
        'deploy',
        '--program-keypair',
        path,
        '-u',
        'http://127.0.0.1:9',
      ]),
    ).toBe('cannot reach the chain RPC at http://127.0.0.1:9');
    expect(await operator.fails(['network', 'deploy', '--program-id', id.toBase58()])).toBe(
      `no program at ${id.toBase58()} on ${net.rpcUrl}: a first deploy needs the program keypair (--program-keypair <file>)`,
    );
    const other = Keypair.generate().publicKey.toBase58();
    expect(
      await operator.fails(['network', 'deploy', '--program-keypair', path, '--program-id', other]),
    ).toMatch(
      new RegExp(`^--program-keypair is for ${id.toBase58()} but the program id is ${other}`),
    );
    expect(
      await operator.fails(['network', 'deploy', '--program-keypair', path, '--max-len', '1000']),
    ).toBe(`--max-len 1000 is smaller than the program (${ELF.length} bytes)`);
    expect(
      await operator.fails(['network', 'deploy', '--program-keypair', path, '--max-len', 'x']),
    ).toMatch(/^bad max length 'x'/);

    // Someone else's program: not ours to upgrade.
    await deploy(['--program-keypair', path]);
    const stranger = new CliUser({ url: 'http://127.0.0.1:9', rpcUrl: net.rpcUrl });
    try {
      await stranger.ok(['keygen']);
      await stranger.ok(['airdrop', '--sol', '5', '--tokens', '1']);
      const strangerKey = readKeypair(join(stranger.configDir, 'id.json')).publicKey;
      const otherPath = join(dir, 'stranger.so');
      writeFileSync(otherPath, buildLoggingProgram('not yours'));
      await expectOtherAuthority(stranger, otherPath, id, payer.publicKey, strangerKey);
      // A wallet that cannot pay is told so before anything is signed.
      const poor = new CliUser({ url: 'http://127.0.0.1:9', rpcUrl: net.rpcUrl });
      try {
        await poor.ok(['keygen']);
        await poor.ok(['airdrop', '--sol', '0.1', '--tokens', '1']);
        expect(
          await poor.fails(['network', 'deploy', '--program-keypair', programKeypair().path]),
        ).toMatch(
          /^insufficient funds: this deploy needs about [01]\.\d+ SOL \(buffer 0\.\d+, program data 0\.\d+, program 0\.00114, fees 0\.000\d+\); payer \w+ has 0\.1 SOL$/,
        );
      } finally {
        poor.cleanup();
      }
    } finally {
      stranger.cleanup();
    }
  });
});
