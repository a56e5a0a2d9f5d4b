import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { failure, sdkClient } from './support/s3-sdk-client';
import {
  startTapeS3Lab,
  TapeS3Lab,
  tapeWithCredential,
  TapeWithCredential,
} from './support/s3-tape-lab';

/**
 * Every acknowledged write takes effect (issue 31): PUT k, DELETE k, then the same PUT k again
 * within one blockhash's life built the same transaction as the first PUT; the node refused it
 * as already processed, the gateway took that for done, answered 200 and left no object. Each
 * write is now a transaction of its own (ChainWriter raises its compute-unit limit by a number
 * no recent write used).
 */
jest.setTimeout(180_000);

let lab: TapeS3Lab;
let site: TapeWithCredential;
let s3: S3Client;

beforeAll(async () => {
  lab = await startTapeS3Lab({ config: { localnet: { slot_ms: 100 } } });
  site = await tapeWithCredential(lab);
  s3 = sdkClient(lab.gw.s3Url, site.accessKeyId, site.secret);
});

afterAll(async () => {
  await lab?.stop();
});

const put = (key: string, body: string) =>
  s3.send(
    new PutObjectCommand({ Bucket: site.label, Key: key, Body: body, ContentType: 'text/plain' }),
  );
const read = async (key: string) => {
  const res = await s3.send(new GetObjectCommand({ Bucket: site.label, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray()).toString();
};
const absent = async (key: string) =>
  (await failure(s3.send(new GetObjectCommand({ Bucket: site.label, Key: key }))))?.name;

describe('a write repeated at once, after its undoing, takes effect again', () => {
  it('PutObject, DeleteObject, the same PutObject', async () => {
    for (let round = 0; round < 3; round++) {
      await put('again.txt', 'same bytes');
      await s3.send(new DeleteObjectCommand({ Bucket: site.label, Key: 'again.txt' }));
      expect(await absent('again.txt')).toBe('NoSuchKey');
      await put('again.txt', 'same bytes');
      expect(await read('again.txt')).toBe('same bytes');
    }
  });

  it('CopyObject, DeleteObjects, the same CopyObject', async () => {
    await put('source.txt', 'copied bytes');
    for (let round = 0; round < 3; round++) {
      const copy = () =>
        s3.send(
          new CopyObjectCommand({
            Bucket: site.label,
            Key: 'copy.txt',
            CopySource: `${site.label}/source.txt`,
          }),
        );
      await copy();
      await s3.send(
        new DeleteObjectsCommand({
          Bucket: site.label,
          Delete: { Objects: [{ Key: 'copy.txt' }] },
        }),
      );
      expect(await absent('copy.txt')).toBe('NoSuchKey');
      await copy();
      expect(await read('copy.txt')).toBe('copied bytes');
    }
  });
});
