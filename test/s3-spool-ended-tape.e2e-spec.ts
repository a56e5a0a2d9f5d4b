import {
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACROSS_PROCESSES, eventually } from './support/eventually';
import { sdkClient } from './support/s3-sdk-client';
import {
  startTapeS3Lab,
  TapeS3Lab,
  tapeWithCredential,
  TapeWithCredential,
} from './support/s3-tape-lab';

/**
 * Issue 34, finding 3: the parts of a multipart upload held the spool for 7 days
 * (upload_expiry_hours) after their tape expired. Now the multipart sweep, at start-up and every
 * 5 minutes, removes every upload of a tape that has expired, as read from chain. Epochs last
 * 2 s here, the tape is bought for 15 of them; the gateway restarts after the expiry, so its
 * start-up sweep is the one that must find it.
 */
jest.setTimeout(180_000);

const MiB = 1024 * 1024;

let lab: TapeS3Lab;
let dataDir: string;
let tape: TapeWithCredential;

const client = (): S3Client => sdkClient(lab.gw.s3Url, tape.accessKeyId, tape.secret);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tape-s3-ended-'));
  lab = await startTapeS3Lab({
    dataDir,
    config: { localnet: { slot_ms: 100, epoch_duration_secs: 2 } },
  });
  tape = await tapeWithCredential(lab, { reservation: ['--epochs', '15'] });
});

afterAll(async () => {
  await lab?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('the uploads of a tape that expired are removed by the next sweep, not 7 days later', async () => {
  const created = await client().send(
    new CreateMultipartUploadCommand({ Bucket: tape.label, Key: 'left.bin' }),
  );
  const uploadId = created.UploadId!;
  await client().send(
    new UploadPartCommand({
      Bucket: tape.label,
      Key: 'left.bin',
      UploadId: uploadId,
      PartNumber: 1,
      Body: randomBytes(MiB),
    }),
  );
  const uploadDir = join(dataDir, 's3-multipart', uploadId);
  expect(existsSync(uploadDir)).toBe(true);

  // Expired once the tape's reads are refused as such.
  await eventually(
    'the tape expired',
    async () => {
      try {
        await client().send(new ListObjectsV2Command({ Bucket: tape.label }));
        return false;
      } catch (error) {
        return /expired/.test((error as Error).message);
      }
    },
    ACROSS_PROCESSES,
  );
  await lab.restart();
  await eventually(
    'the upload of the expired tape is removed',
    () => !existsSync(uploadDir),
    ACROSS_PROCESSES,
  );
});
