import {
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ACROSS_PROCESSES, eventually } from './support/jest/eventually';
import { useS3TapeFixture } from './support/labs/s3-tape-fixture';

/**
 * Issue 34, finding 3: the parts of a multipart upload held the spool for 7 days
 * (upload_expiry_hours) after their tape expired. Now the multipart sweep, at start-up and every
 * 5 minutes, removes every upload of a tape that has expired, as read from chain. Epochs last
 * 2 s here, the tape is bought for 15 of them; the gateway restarts after the expiry, so its
 * start-up sweep is the one that must find it.
 */
jest.setTimeout(180_000);

const MiB = 1024 * 1024;

const fx = useS3TapeFixture({
  config: { localnet: { slot_ms: 100, epoch_duration_secs: 2 } },
  ownDataDir: true,
  tape: { reservation: ['--epochs', '15'] },
});

it('the uploads of a tape that expired are removed by the next sweep, not 7 days later', async () => {
  const created = await fx
    .client()
    .send(new CreateMultipartUploadCommand({ Bucket: fx.site.label, Key: 'left.bin' }));
  const uploadId = created.UploadId!;
  await fx.client().send(
    new UploadPartCommand({
      Bucket: fx.site.label,
      Key: 'left.bin',
      UploadId: uploadId,
      PartNumber: 1,
      Body: randomBytes(MiB),
    }),
  );
  const uploadDir = join(fx.dataDir, 's3-multipart', uploadId);
  expect(existsSync(uploadDir)).toBe(true);

  // Expired once the tape's reads are refused as such.
  await eventually(
    'the tape expired',
    async () => {
      try {
        await fx.client().send(new ListObjectsV2Command({ Bucket: fx.site.label }));
        return false;
      } catch (error) {
        return /expired/.test((error as Error).message);
      }
    },
    ACROSS_PROCESSES,
  );
  await fx.lab.restart();
  await eventually(
    'the upload of the expired tape is removed',
    () => !existsSync(uploadDir),
    ACROSS_PROCESSES,
  );
});
