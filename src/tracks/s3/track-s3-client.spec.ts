import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { TrackS3Config } from '../../config/storage.config';
import { trackS3Client } from './track-s3-client';

describe('trackS3Client against a store that connects and then says nothing', () => {
  let server: Server;
  let endpoint: string;

  beforeAll(async () => {
    server = createServer(() => undefined); // accepts every request, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = () =>
    trackS3Client(
      Object.assign(new TrackS3Config(), {
        endpoint,
        request_timeout_ms: 200,
        access_key_id: 'AKIDEXAMPLE',
        secret_access_key: 'secret',
      }),
    );

  it('fails a HEAD once the socket has been silent for request_timeout_ms (per attempt)', async () => {
    const started = Date.now();
    await expect(
      client().send(new HeadObjectCommand({ Bucket: 'b', Key: 'tracks/x' })),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('fails a PUT the same way (no upload waits for ever on a hung store)', async () => {
    await expect(
      client().send(
        new PutObjectCommand({ Bucket: 'b', Key: 'tracks/x', Body: Buffer.alloc(1024) }),
      ),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
