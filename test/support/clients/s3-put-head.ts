import { connect, Socket } from 'node:net';
import { requestHead } from './s3-raw-http';
import { encodeKeyPath, signWithHeader } from './s3-signing';

/** Whose bucket a raw PutObject writes to: a tape's label and its S3 credential. */
export interface PutHeadOwner {
  label: string;
  accessKeyId: string;
  secret: string;
}

/**
 * A raw socket that has sent the signed head (UNSIGNED-PAYLOAD, `content-length: size`) of an
 * S3 PutObject of `key` to the S3 listener at `s3Url`, and no body yet: the caller writes what
 * it wants of the body, stalls or drops the connection.
 */
export async function s3PutHead(
  s3Url: string,
  owner: PutHeadOwner,
  key: string,
  size: number,
): Promise<Socket> {
  const port = Number(new URL(s3Url).port);
  const path = encodeKeyPath(owner.label, key);
  const signed = await signWithHeader({
    method: 'PUT',
    path,
    host: `127.0.0.1:${port}`,
    headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': String(size) },
    date: new Date(),
    accessKeyId: owner.accessKeyId,
    secret: owner.secret,
  });
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(requestHead('PUT', path, signed.rawHeaders));
  return socket;
}
