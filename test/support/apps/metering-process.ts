import type { ChildProcess } from 'node:child_process';
import { findRepoRoot } from '../processes/gateway';
import { siblingEntry, spawnNodeChild } from '../processes/node-child';
import { GATEWAY_NODE_FLAGS } from '../../../src/node-flags';

export interface MeteringProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  logs(): string;
  /** SIGTERM by PID; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The metering test app (test/support/apps/metering-app.ts) in a process of its own. */
export async function startMeteringProcess(
  metering: Record<string, unknown>,
): Promise<MeteringProcess> {
  const app = spawnNodeChild({
    name: 'metering app',
    nodeFlags: GATEWAY_NODE_FLAGS,
    // The compiled entry in dist-bench, else the TypeScript source (jest).
    entry: siblingEntry(__dirname, 'metering-app-main'),
    cwd: findRepoRoot(__dirname),
    env: { ...process.env, METERING_CONFIG: JSON.stringify(metering) },
  });
  const [, port] = await app.waitForLine(/^listening (\d+)$/m, 30_000);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: app.pid,
    child: app.child,
    logs: app.logs,
    stop: () => app.stop(),
  };
}
