/** What the queue needs of a WebSocket (`ws`'s WebSocket on the server side has it). */
export interface PubsubSocket {
  readonly readyState: number;
  /** Bytes given to the socket and not yet written to the kernel. */
  readonly bufferedAmount: number;
  send(
    data: string | Buffer,
    options: { binary: boolean; fin: boolean },
    cb?: (err?: Error) => void,
  ): void;
  close(code: number, reason: string): void;
  terminate(): void;
}

const OPEN = 1;
/** The close code a client that does not read its notifications gets: policy violation. */
export const SLOW_READER_CLOSE_CODE = 1008;
/** A dropped client gets this long to read up to the close frame, then the socket is destroyed. */
export const DROP_GRACE_MS = 5_000;
/**
 * Largest frame handed to the socket at once, and what it may hold unwritten before the next
 * one. A socket's first write is copied into the kernel at once, up to its send and the peer's
 * receive buffers (tens of MB on loopback): in pieces, that copy is spread over many turns of
 * the event loop instead of one turn per socket.
 */
export const FRAME_BYTES = 256 * 1024;

interface Piece {
  data: string | Buffer;
  fin: boolean;
  bytes: number;
}

/**
 * The send side of one PubSub connection, bounded and paced. Messages wait in order in the
 * queue and go to the socket one frame at a time, the next once the socket has written the
 * last. A message that would take the queued bytes (waiting here and unwritten in the socket)
 * past `maxQueuedBytes` is not queued: the client is dropped (close 1008, then destroyed after
 * DROP_GRACE_MS whatever it does), since a client that does not read would otherwise hold every
 * notification ever sent to it.
 *
 * `sendShared`'s large middle (an account's JSON) is one Buffer shared by every subscriber: it
 * goes out as continuation frames of subarrays of that Buffer, so 16 sockets that never read a
 * 10 MiB account's notifications hold one copy of each notification, not sixteen.
 */
export class NotificationQueue {
  private readonly pieces: Piece[] = [];
  private queuedBytes = 0;
  private writing = false;
  private dropped = false;

  constructor(
    private readonly socket: PubsubSocket,
    private readonly maxQueuedBytes: number,
    private readonly onDropped: (queuedBytes: number) => void,
  ) {}

  get open(): boolean {
    return !this.dropped && this.socket.readyState === OPEN;
  }

  /** Bytes waiting here and unwritten in the socket. */
  get queued(): number {
    return this.queuedBytes + this.socket.bufferedAmount;
  }

  /** A small message (an answer, a slot or signature notification). */
  sendText(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.admit(bytes)) this.push({ data: text, fin: true, bytes });
  }

  /** `head` + `body` + `tail` as one text message; `body` is shared, never copied. */
  sendShared(head: string, body: Buffer, tail: string): void {
    const bytes = Buffer.byteLength(head) + body.length + Buffer.byteLength(tail);
    if (!this.admit(bytes)) return;
    if (bytes <= FRAME_BYTES) {
      this.push({ data: head + body.toString('utf8') + tail, fin: true, bytes });
      return;
    }
    this.push({ data: head, fin: false, bytes: Buffer.byteLength(head) });
    for (let at = 0; at < body.length; at += FRAME_BYTES) {
      const piece = body.subarray(at, at + FRAME_BYTES);
      this.push({ data: piece, fin: false, bytes: piece.length });
    }
    this.push({ data: tail, fin: true, bytes: Buffer.byteLength(tail) });
  }

  /** Lets go of what is still queued (the connection is gone). */
  discard(): void {
    this.pieces.length = 0;
    this.queuedBytes = 0;
  }

  private admit(bytes: number): boolean {
    if (!this.open) return false;
    const queued = this.queued;
    if (queued + bytes <= this.maxQueuedBytes) return true;
    this.drop(queued);
    return false;
  }

  private push(piece: Piece): void {
    this.pieces.push(piece);
    this.queuedBytes += piece.bytes;
    this.pump();
  }

  /** Hands the socket the next frame once it has written the last one. */
  private pump(): void {
    if (this.writing || !this.open) return;
    const piece = this.pieces.shift();
    if (!piece) return;
    this.queuedBytes -= piece.bytes;
    this.writing = true;
    this.socket.send(piece.data, { binary: false, fin: piece.fin }, () => {
      this.writing = false;
      this.pump();
    });
  }

  private drop(queued: number): void {
    this.dropped = true;
    this.discard();
    this.onDropped(queued);
    // The close frame follows what the socket already has: a slow reader that catches up
    // learns why. One that never reads is cut off after the grace period.
    this.socket.close(
      SLOW_READER_CLOSE_CODE,
      `notifications not read: over ${this.maxQueuedBytes} bytes queued`,
    );
    setTimeout(() => this.socket.terminate(), DROP_GRACE_MS).unref();
  }
}
