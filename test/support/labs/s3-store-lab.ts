import { CephRgw, CephRgwOptions, startCephRgw } from '../processes/ceph';
import { GatewayProcess, startGateway } from '../processes/gateway';

/**
 * The topology of docs/operator.md, "Scaling out", for benchmarks: a Ceph RGW bucket, a writer
 * gateway (embedded local network, the storage-authority key, store = s3) and reader gateways
 * on the writer's RPC and the same bucket (no key). Every process is stopped by `stop()`.
 */
export interface S3StoreLab {
  ceph: CephRgw;
  writer: GatewayProcess;
  bucket: string;
  /**
   * A reader on the writer's chain and the bucket, with the owner's keys unless told otherwise;
   * `env` adds to (or overrides) the store's.
   */
  startReader(
    env?: Record<string, string>,
    credentials?: StoreCredentials,
  ): Promise<GatewayProcess>;
  stop(): Promise<void>;
}

export type StoreCredentials = 'owner' | 'read-only' | 'anonymous';

/** The environment that points a gateway at the lab's bucket, with which credentials. */
export function trackStoreEnv(
  ceph: CephRgw,
  bucket: string,
  credentials: StoreCredentials = 'owner',
): Record<string, string> {
  const keys =
    credentials === 'owner'
      ? { id: ceph.accessKey, secret: ceph.secretKey }
      : credentials === 'read-only'
        ? { id: ceph.readAccessKey, secret: ceph.readSecretKey }
        : undefined;
  return {
    TAPE__STORAGE__TRACKS__STORE: 's3',
    TAPE__STORAGE__TRACKS__S3__ENDPOINT: ceph.endpoint,
    TAPE__STORAGE__TRACKS__S3__BUCKET: bucket,
    ...(keys && {
      TAPE__STORAGE__TRACKS__S3__ACCESS_KEY_ID: keys.id,
      TAPE__STORAGE__TRACKS__S3__SECRET_ACCESS_KEY: keys.secret,
    }),
  };
}

export async function startS3StoreLab(
  options: { ceph?: CephRgwOptions; bucket?: string; env?: Record<string, string> } = {},
): Promise<S3StoreLab> {
  const bucket = options.bucket ?? 'tape-bench';
  const ceph = await startCephRgw(options.ceph);
  const readers: GatewayProcess[] = [];
  let writer: GatewayProcess | undefined;
  const stop = async () => {
    for (const r of readers) await r.stop();
    await writer?.stop();
    await ceph.stop();
  };
  try {
    writer = await startGateway({
      env: {
        ...trackStoreEnv(ceph, bucket),
        TAPE__STORAGE__TRACKS__S3__CREATE_BUCKET: 'true',
        ...options.env,
      },
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const started = writer;
  return {
    ceph,
    writer: started,
    bucket,
    startReader: async (env = {}, credentials = 'owner') => {
      const reader = await startGateway({
        rpcUrl: started.rpcUrl,
        env: { ...trackStoreEnv(ceph, bucket, credentials), ...options.env, ...env },
      });
      readers.push(reader);
      return reader;
    },
    stop,
  };
}
