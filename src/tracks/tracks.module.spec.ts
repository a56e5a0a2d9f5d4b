import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ConfigModule } from '../config/config.module';
import { loadConfig } from '../config/config-loader';
import { HealthModule } from '../health/health.module';
import { HealthRegistry } from '../health/health-registry';
import { commitmentOfBuffer } from './commitment';
import { FileTrackStore } from './file-track-store';
import { ObjectReader } from './object-reader';
import { TrackStore } from './track-store';
import { S3TrackStore } from './s3/s3-track-store';
import { PeerTrackStore } from './peers/peer-track-store';
import { createTrackStore, TracksModule } from './tracks.module';

async function newTestModule(dataDir: string) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(loadConfig({ TAPE_DATA_DIR: dataDir })),
      HealthModule,
      TracksModule,
    ],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('TracksModule', () => {
  it('provides a file store under <data_dir>/tracks and a reader over it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracks-module-'));
    const moduleRef = await newTestModule(dataDir);
    const store = moduleRef.get(TrackStore);
    expect(store).toBeInstanceOf(FileTrackStore);
    expect((store as FileTrackStore).root).toBe(join(dataDir, 'tracks'));
    const data = Buffer.from('hello tracks');
    const { commitment } = commitmentOfBuffer(data);
    await store.put(commitment, data.length, Readable.from([data]));
    const object = await moduleRef
      .get(ObjectReader)
      .open({ kind: 'blob', commitment, size: data.length });
    expect(object.bytes?.toString()).toBe('hello tracks');
    await moduleRef.close();
  });

  it('registers a track-store health probe that notices an unwritable store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracks-module-'));
    const moduleRef = await newTestModule(dataDir);
    const health = moduleRef.get(HealthRegistry);
    expect((await health.check()).checks['track-store']).toBe('ok');
    const tmp = join(dataDir, 'tracks', '.tmp');
    rmSync(tmp, { recursive: true });
    writeFileSync(tmp, 'not a directory');
    const result = await health.check();
    expect(result.ok).toBe(false);
    expect(result.checks['track-store']).toBe('track store not writable (ENOTDIR)');
    await moduleRef.close();
  });

  it('fails to start when the data directory cannot hold a store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracks-module-'));
    writeFileSync(join(dataDir, 'tracks'), 'a file where the store should be');
    await expect(newTestModule(dataDir)).rejects.toThrow(/ENOTDIR|EEXIST/);
  });

  it('storage.tracks.store = s3 (env) provides the S3 store with its cache under data_dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracks-module-'));
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(
          loadConfig({
            TAPE_DATA_DIR: dataDir,
            TAPE__STORAGE__TRACKS__STORE: 's3',
            TAPE__STORAGE__TRACKS__S3__ENDPOINT: 'http://127.0.0.1:9',
            TAPE__STORAGE__TRACKS__CACHE__MAX_BYTES: '1048576',
          }),
        ),
        HealthModule,
        TracksModule,
      ],
    }).compile();
    await moduleRef.init();
    const store = moduleRef.get(TrackStore);
    expect(store).toBeInstanceOf(S3TrackStore);
    expect((store as S3TrackStore).cache.dir).toBe(join(dataDir, 'track-cache'));
    expect((store as S3TrackStore).cache.maxBytes).toBe(1048576);
    // Nothing listens on port 9: the probe names the store, readiness fails.
    const health = await moduleRef.get(HealthRegistry).check(5000);
    expect(health.checks['track-store']).toMatch(/^track store unreachable/);
    expect(health.details.tracks).toMatchObject({ backend: 's3', cache: { tracks: 0 } });
    await moduleRef.close();
  });

  it('create_bucket: a writer creates a missing bucket, a reader sends the store nothing', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.statusCode = req.method === 'HEAD' ? 404 : 200;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const storage = (dir: string) =>
      loadConfig({
        TAPE_DATA_DIR: dir,
        TAPE__STORAGE__TRACKS__STORE: 's3',
        TAPE__STORAGE__TRACKS__S3__ENDPOINT: endpoint,
        TAPE__STORAGE__TRACKS__S3__BUCKET: 'shared-bucket',
        TAPE__STORAGE__TRACKS__S3__CREATE_BUCKET: 'true',
      }).storage;
    try {
      const reader = await createTrackStore(
        storage(mkdtempSync(join(tmpdir(), 'tracks-module-'))),
        undefined,
        'reader',
      );
      expect(seen).toEqual([]);
      await (reader as S3TrackStore).close();
      const writer = await createTrackStore(
        storage(mkdtempSync(join(tmpdir(), 'tracks-module-'))),
        undefined,
        'writer',
      );
      expect(seen).toEqual(['HEAD /shared-bucket/', 'PUT /shared-bucket/']);
      await (writer as S3TrackStore).close();
    } finally {
      server.close();
    }
  });

  it('storage.tracks.peers: a reader gets the peers store, its cache under data_dir; refused with s3 or on a writer, and a bad URL names the key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracks-peers-'));
    try {
      // A reader: an external RPC and no key file (src/config/gateway-role.ts).
      const env = {
        TAPE_DATA_DIR: dataDir,
        TAPE_RPC_URL: 'http://127.0.0.1:9',
        TAPE__STORAGE__TRACKS__PEERS: '["http://127.0.0.1:9"]',
      };
      const store = await createTrackStore(loadConfig(env).storage, undefined, 'reader');
      expect(store).toBeInstanceOf(PeerTrackStore);
      expect((store as PeerTrackStore).cache.dir).toBe(join(dataDir, 'track-cache'));
      (store as PeerTrackStore).close();
      await expect(createTrackStore(loadConfig(env).storage, undefined, 'writer')).rejects.toThrow(
        /storage\.tracks\.peers: only a reader/,
      );
      expect(() => loadConfig({ ...env, TAPE__STORAGE__TRACKS__STORE: 's3' })).toThrow(
        /^config error: storage\.tracks\.peers: .*not both/,
      );
      expect(() => loadConfig({ TAPE__STORAGE__TRACKS__PEERS: '["ftp://x", "http://a"]' })).toThrow(
        /^config error: storage\.tracks\.peers: each peer must be an http\(s\) URL/,
      );
      expect(() => loadConfig({ TAPE__STORAGE__TRACKS__PEERS: '["http://user:pw@a"]' })).toThrow(
        /storage\.tracks\.peers/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
