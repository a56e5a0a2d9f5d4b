/**
 * Entry of the site gateway in a child process (see site-gateway.ts): options from
 * SITE_GATEWAY_OPTIONS (JSON), prints `listening <port> <rpcUrl>`, exits 0 on SIGTERM.
 */
import { SiteGatewayOptions, startSiteGatewayApp } from './site-gateway-app';

async function main(): Promise<void> {
  const options = JSON.parse(process.env.SITE_GATEWAY_OPTIONS ?? '{}') as SiteGatewayOptions;
  const gateway = await startSiteGatewayApp(options);
  process.stdout.write(`listening ${options.port} ${gateway.rpcUrl}\n`);
  process.once('SIGTERM', () => {
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`site gateway failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
