import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ENTRY, cliEnv, runCli } from '../../test/support/clients/cli';
import { GatewayProcess, startGateway } from '../../test/support/processes/gateway';

/** A benchmark's gateway (local network embedded) and a `tape` user of it, in a work directory. */
export interface BenchGateway {
  gateway: GatewayProcess;
  /** A temporary directory for the run; the gateway's data lives in `work/gateway`. */
  work: string;
  /**
   * The environment of a `tape` user of this gateway (config directory `work/config`), who is
   * also its operator (TAPE_DATA_DIR: the gateway's, for `tape gateway …`).
   */
  cliEnv: Record<string, string>;
  /** Runs `tape <args>` as that user; its stdout, or an error with its stderr. */
  tape(...args: string[]): Promise<string>;
  /** Stops the gateway, prints what it logged (warnings and errors), removes `work`. */
  stop(): Promise<void>;
}

/** For the benchmarks that drive the built CLI (`npm run build` first) against a gateway. */
export async function startBenchGateway(name: string): Promise<BenchGateway> {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run npm run build first`);
  const work = mkdtempSync(join(tmpdir(), `tape-bench-${name}-`));
  const gateway = await startGateway({ dataDir: join(work, 'gateway') });
  const env = cliEnv(
    {
      configDir: join(work, 'config'),
      rpcUrl: gateway.rpcUrl,
      gatewayUrl: gateway.url,
    },
    // The hash cache (docs/cli.md) starts empty and goes with the run.
    { XDG_CACHE_HOME: join(work, 'cache'), TAPE_DATA_DIR: gateway.dataDir },
  );
  return {
    gateway,
    work,
    cliEnv: env,
    tape: async (...args) => {
      const result = await runCli(args, env);
      if (result.code !== 0) throw new Error(`tape ${args.join(' ')} failed: ${result.stderr}`);
      return result.stdout;
    },
    stop: async () => {
      await gateway.stop();
      process.stderr.write(gateway.logs());
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/**
 * The object benchmarks' gateways meter objects (the production path) with budgets no run
 * reaches, so every request is counted and none refused.
 */
export const UNREACHED_OBJECT_BUDGETS: Record<string, string> = {
  TAPE__GATEWAY__METERING__OBJECT__LIMIT: String(1e12),
  TAPE__GATEWAY__METERING__OBJECT__TTL_SECS: '60',
  TAPE__GATEWAY__METERING__OBJECT_BYTES: String(1e15),
};
