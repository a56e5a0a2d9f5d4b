import { join } from 'node:path';
import { UploadClient } from './support/upload-client';
import { CliUser, keyValues } from './support/cli-process';
import { removeSite, writeSite } from './support/cli-site';
import { GatewayProcess, startGateway } from './support/gateway-process';
import { RpcFaultProxy, startRpcFaultProxy } from './support/rpc-fault-proxy';
import { siteGet } from './support/site-http';

/**
 * A writer gateway whose RPC connection breaks under it. web3.js's confirmTransaction asks
 * getSignatureStatus in a promise nobody awaits: when that request fails (a connection reset
 * by a provider or a proxy), the rejection is unhandled, and Node ends the process on an
 * unhandled rejection. The gateway must log it and go on serving, and the confirmation must
 * still arrive through the signature subscription.
 */
describe('a writer gateway whose RPC drops requests', () => {
  let chainGw: GatewayProcess;
  let writer: GatewayProcess;
  let proxy: RpcFaultProxy;
  let user: CliUser;
  let root: string | undefined;

  beforeAll(async () => {
    chainGw = await startGateway();
    const wsPort = Number(new URL(chainGw.rpcUrl).port) + 1;
    proxy = await startRpcFaultProxy(chainGw.rpcUrl, (request) =>
      request.method === 'getSignatureStatuses' ? 'reset' : 'forward',
    );
    // The same data directory: the same storage-authority key as the network's config.
    writer = await startGateway({
      rpcUrl: proxy.url,
      dataDir: chainGw.dataDir,
      env: { TAPE__CHAIN__WS_URL: `ws://127.0.0.1:${wsPort}` },
    });
    user = new CliUser({ url: writer.url, rpcUrl: chainGw.rpcUrl });
    await user.fundedWallet();
  });
  afterAll(async () => {
    await writer?.stop();
    await proxy?.close();
    await chainGw?.stop();
    user?.cleanup();
    if (root) removeSite(root);
  });

  it('certifies uploads and stays up while getSignatureStatuses requests are reset', async () => {
    const created = keyValues(await user.ok(['create', '--capacity', '64k', '--duration', '1d']));
    root = writeSite({
      'index.html': '<!doctype html><title>faults</title><p>still here</p>',
      'app.js': 'console.log("faults")',
    });
    await user.ok(['deploy', join(root, 'index.html')]);
    // A tenant's deploy is a Publish the tenant sends and confirms (the gateway only co-signs):
    // the gateway's own transactions meet the resets, here the certification of an upload.
    const client = new UploadClient(writer.url, chainGw.rpcUrl);
    try {
      const wallet = await client.fundedWallet();
      const tape = await client.createTape(wallet, 1 << 20, 10);
      await client.store(
        wallet,
        tape,
        Buffer.from('certified through resets'),
        'text/plain',
        1 << 20,
      );
    } finally {
      client.close();
    }

    // The confirmation path asked for statuses and had them reset at least once.
    expect(proxy.seen.some((r) => r.decision === 'reset')).toBe(true);
    expect(writer.child.exitCode).toBeNull();
    const health = await fetch(`${writer.url}/healthz`);
    expect(health.status).toBe(200);
    const page = await siteGet(writer.url, `/site/${created['tape address']}/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('still here');
    // Logged once per rejection as an error line naming what happened, not silently swallowed.
    expect(writer.logs()).toMatch(/"event":"unhandled_rejection"/);
  });
});
