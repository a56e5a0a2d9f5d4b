import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { sdkClient } from './support/clients/s3-sdk-client';
import { CliUser, keyValues } from './support/clients/cli';
import { removeSite, writeSite } from './support/fixtures/site-dir';
import { GatewayProcess, startGateway } from './support/processes/gateway';
import { RpcFaultProxy, startRpcFaultProxy } from './support/proxies/rpc-fault-proxy';
import { siteGet } from './support/clients/site-http';

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

  it('publishes its own S3 writes and stays up while getSignatureStatuses requests are reset', async () => {
    const created = keyValues(await user.ok(['create', '--capacity', '64k', '--duration', '1d']));
    root = writeSite({
      'index.html': '<!doctype html><title>faults</title><p>still here</p>',
      'app.js': 'console.log("faults")',
    });
    await user.ok(['deploy', join(root, 'index.html')]);
    // A tenant's deploy is a Publish the tenant sends and confirms (the gateway only co-signs):
    // the gateway's own transactions meet the resets, here the Publish of an S3 write (the
    // tape delegated to the gateway, the gateway's key paying its fee).
    const operator = new CliUser(
      { url: writer.url, rpcUrl: chainGw.rpcUrl },
      { TAPE_DATA_DIR: chainGw.dataDir },
    );
    try {
      const gatewayKey = (await operator.ok(['gateway', 'key'])).trim();
      await user.ok(['delegate', gatewayKey]);
      const issued = keyValues(
        await operator.ok(['gateway', 'credentials', 'issue', '--tape', created['tape address']]),
      );
      const s3 = sdkClient(writer.s3Url, issued['access key id'], issued['secret access key']);
      await s3.send(
        new PutObjectCommand({
          Bucket: created.label,
          Key: 'written-through-resets.txt',
          Body: 'published through resets',
        }),
      );
      const written = await siteGet(
        writer.url,
        `/site/${created['tape address']}/written-through-resets.txt`,
      );
      expect([written.status, written.text]).toEqual([200, 'published through resets']);
    } finally {
      operator.cleanup();
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
