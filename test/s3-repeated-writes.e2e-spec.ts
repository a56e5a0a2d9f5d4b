import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { failure } from './support/clients/s3-sdk-client';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';

/**
 * Every acknowledged write takes effect (issue 31): PUT k, DELETE k, then the same PUT k again
 * within one blockhash's life built the same transaction as the first PUT; the node refused it
 * as already processed, the gateway took that for done, answered 200 and left no object. Each
 * write is now a transaction of its own (ChainWriter raises its compute-unit limit by a number
 * no recent write used).
 */
jest.setTimeout(180_000);

const fx = useS3TapeFixture({ config: { localnet: { slot_ms: 100 } } });

const put = (key: string, body: string) =>
  fx.s3.send(
    new PutObjectCommand({
      Bucket: fx.site.label,
      Key: key,
      Body: body,
      ContentType: 'text/plain',
    }),
  );
const read = async (key: string) => {
  const res = await fx.s3.send(new GetObjectCommand({ Bucket: fx.site.label, Key: key }));
  return Buffer.from(await res.Body!.transformToByteArray()).toString();
};
const absent = async (key: string) =>
  (await failure(fx.s3.send(new GetObjectCommand({ Bucket: fx.site.label, Key: key }))))?.name;

describe('a write repeated at once, after its undoing, takes effect again', () => {
  it('PutObject, DeleteObject, the same PutObject', async () => {
    for (let round = 0; round < 3; round++) {
      await put('again.txt', 'same bytes');
      await fx.s3.send(new DeleteObjectCommand({ Bucket: fx.site.label, Key: 'again.txt' }));
      expect(await absent('again.txt')).toBe('NoSuchKey');
      await put('again.txt', 'same bytes');
      expect(await read('again.txt')).toBe('same bytes');
    }
  });

  it('CopyObject, DeleteObjects, the same CopyObject', async () => {
    await put('source.txt', 'copied bytes');
    for (let round = 0; round < 3; round++) {
      const copy = () =>
        fx.s3.send(
          new CopyObjectCommand({
            Bucket: fx.site.label,
            Key: 'copy.txt',
            CopySource: `${fx.site.label}/source.txt`,
          }),
        );
      await copy();
      await fx.s3.send(
        new DeleteObjectsCommand({
          Bucket: fx.site.label,
          Delete: { Objects: [{ Key: 'copy.txt' }] },
        }),
      );
      expect(await absent('copy.txt')).toBe('NoSuchKey');
      await copy();
      expect(await read('copy.txt')).toBe('copied bytes');
    }
  });
});
