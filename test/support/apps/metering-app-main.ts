/**
 * Entry of the metering test app in a child process (see metering-process.ts): config from
 * METERING_CONFIG, listens on a free port of 127.0.0.1, prints `listening <port>`, exits on SIGTERM.
 */
import { startMeteringTestApp } from './metering-app';

async function main(): Promise<void> {
  const metering = JSON.parse(process.env.METERING_CONFIG ?? '{}') as Record<string, unknown>;
  const app = await startMeteringTestApp(metering, '127.0.0.1', ['log', 'warn', 'error']);
  process.stdout.write(`listening ${app.port}\n`);
  process.once('SIGTERM', () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`metering test app failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
