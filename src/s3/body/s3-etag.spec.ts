import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3EtagTap } from './s3-etag';

const md5 = (b: Buffer) => createHash('md5').update(b).digest();

async function run(chunks: Buffer[], partSizes?: number[]): Promise<string | undefined> {
  const tap = new S3EtagTap(partSizes);
  const seen: Buffer[] = [];
  await pipeline(Readable.from(chunks), tap.stream, async (source: AsyncIterable<Buffer>) => {
    for await (const c of source) seen.push(c);
  });
  expect(Buffer.concat(seen)).toEqual(Buffer.concat(chunks));
  return tap.etag();
}

describe('S3EtagTap', () => {
  it("is the hex MD5 of a single-part body (s3-tests' test_object_write_check_etag)", async () => {
    await expect(run([Buffer.from('b'), Buffer.from('ar')])).resolves.toBe(
      '37b51d194a7513e45b56f6524f2d51f2',
    );
    await expect(run([])).resolves.toBe('d41d8cd98f00b204e9800998ecf8427e');
  });

  it("is S3's multipart ETag, whatever the chunks' boundaries", async () => {
    const parts = [Buffer.alloc(7, 'a'), Buffer.alloc(7, 'b'), Buffer.alloc(3, 'c')];
    const expected =
      createHash('md5')
        .update(Buffer.concat(parts.map(md5)))
        .digest('hex') + '-3';
    const whole = Buffer.concat(parts);
    const chunks = [whole.subarray(0, 5), whole.subarray(5, 16), whole.subarray(16)];
    await expect(run(chunks, [7, 7, 3])).resolves.toBe(expected);
    await expect(run([whole], [7, 7, 3])).resolves.toBe(expected);
  });

  it('counts an empty last part', async () => {
    const expected =
      createHash('md5')
        .update(Buffer.concat([md5(Buffer.from('xy')), md5(Buffer.alloc(0))]))
        .digest('hex') + '-2';
    await expect(run([Buffer.from('xy')], [2, 0])).resolves.toBe(expected);
  });
});
