import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateConfig } from '../config/config-loader';
import { ConfigModule } from '../config/config.module';
import { HealthModule } from '../health/health.module';
import { ChainFaucet } from './chain-faucet';
import { ChainReader } from './chain-reader';
import { ChainRpc } from './chain-rpc';
import { ChainWriter } from './chain-writer';
import { ChainModule, ChainServices } from './chain.module';
import { StorageCosts } from './storage-costs';
import { TapeInstructions } from './tape-instructions';
import { freePort } from '../../test/support/processes/free-port';

/** The gateway's chain module over an RPC nobody answers (nothing here needs an answer). */
async function newTestModule(chain: Record<string, unknown>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'chain-module-'));
  const port = await freePort();
  const config = validateConfig({
    chain: { rpc_url: `http://127.0.0.1:${port}`, ...chain },
    storage: { data_dir: dataDir },
  });
  const moduleRef = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(config), HealthModule, ChainModule],
  }).compile();
  moduleRef.useLogger(false);
  return {
    moduleRef,
    close: async () => {
      await moduleRef.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('ChainModule', () => {
  it('provides each chain service, all over one Connection', async () => {
    const { moduleRef, close } = await newTestModule({});
    try {
      const services = moduleRef.get(ChainServices);
      expect(moduleRef.get(ChainRpc)).toBe(services.rpc);
      expect(moduleRef.get(ChainReader)).toBe(services.reader);
      expect(moduleRef.get(ChainWriter)).toBe(services.writer);
      expect(moduleRef.get(ChainFaucet)).toBe(services.faucet);
      expect(moduleRef.get(StorageCosts)).toBe(services.costs);
      expect(moduleRef.get(TapeInstructions)).toBe(services.ix);
      const rpcs = [services.reader, services.writer, services.faucet, services.costs].map(
        (s) => (s as unknown as { rpc: ChainRpc }).rpc,
      );
      expect(new Set(rpcs)).toEqual(new Set([services.rpc]));
    } finally {
      await close();
    }
  });

  it('gives the writer chain.compute_unit_price and the program id of the config', async () => {
    const programId = 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS';
    const { moduleRef, close } = await newTestModule({
      compute_unit_price: 25_000,
      program_id: programId,
    });
    try {
      expect(moduleRef.get(ChainWriter).packing.computeUnitPrice).toBe(25_000);
      expect(moduleRef.get(TapeInstructions).programId.toBase58()).toBe(programId);
    } finally {
      await close();
    }
  });

  it('waits at most 2 s at start-up for a chain that does not answer, and closes on shutdown', async () => {
    // Takes connections and never answers.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const { moduleRef, close } = await newTestModule({ rpc_url: `http://127.0.0.1:${port}` });
    try {
      const closed = jest.spyOn(moduleRef.get(ChainRpc), 'close');
      const started = performance.now();
      await moduleRef.init();
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(1900);
      expect(waited).toBeLessThan(3000);
      await close();
      expect(closed).toHaveBeenCalled();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
