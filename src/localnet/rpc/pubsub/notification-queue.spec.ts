import {
  DROP_GRACE_MS,
  FRAME_BYTES,
  NotificationQueue,
  PubsubSocket,
  SLOW_READER_CLOSE_CODE,
} from './notification-queue';

/** A socket that keeps every frame and writes one when told to (`flush`). */
class RecordingSocket implements PubsubSocket {
  readyState = 1;
  bufferedAmount = 0;
  readonly frames: Array<{ data: string | Buffer; fin: boolean }> = [];
  readonly closed: Array<{ code: number; reason: string }> = [];
  terminated = false;
  private pending: Array<() => void> = [];

  send(data: string | Buffer, options: { fin: boolean }, cb?: () => void): void {
    this.frames.push({ data, fin: options.fin });
    this.pending.push(() => cb?.());
  }

  /** The kernel took the frame: its callback runs (and the queue hands over the next). */
  flush(): void {
    this.pending.shift()?.();
  }

  flushAll(): void {
    while (this.pending.length > 0) this.flush();
  }

  close(code: number, reason: string): void {
    this.closed.push({ code, reason });
    this.readyState = 2;
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
  }
}

function newQueue(max = 8 * FRAME_BYTES) {
  const socket = new RecordingSocket();
  const drops: number[] = [];
  const sut = new NotificationQueue(socket, max, (queued) => drops.push(queued));
  return { sut, socket, drops };
}

const text = (frames: Array<{ data: string | Buffer }>) =>
  frames.map((f) => (typeof f.data === 'string' ? f.data : f.data.toString('utf8'))).join('');

describe('NotificationQueue', () => {
  it('sends a large shared body as frames over the same memory for every socket, one at a time', () => {
    const body = Buffer.alloc(3 * FRAME_BYTES + 5, 'a');
    const a = newQueue();
    const b = newQueue();
    a.sut.sendShared('{"head":"', body, '"}');
    b.sut.sendShared('{"head":"', body, '"}');
    // Only the head so far: the next frame waits until the socket has written it.
    expect(a.socket.frames).toHaveLength(1);
    a.socket.flushAll();
    b.socket.flushAll();
    for (const { socket } of [a, b]) {
      const pieces = socket.frames.filter((f) => Buffer.isBuffer(f.data));
      expect(pieces).toHaveLength(4);
      // Subarrays of the one Buffer, not copies.
      for (const p of pieces) expect((p.data as Buffer).buffer).toBe(body.buffer);
      expect(socket.frames.map((f) => f.fin)).toEqual([false, false, false, false, false, true]);
      expect(text(socket.frames)).toBe(`{"head":"${body.toString()}"}`);
    }
  });

  it('keeps messages in order behind a message still going out', () => {
    const { sut, socket } = newQueue();
    sut.sendShared('[', Buffer.alloc(2 * FRAME_BYTES, 'b'), ']');
    sut.sendText('{"next":1}');
    socket.flushAll();
    expect(socket.frames[socket.frames.length - 1]).toEqual({ data: '{"next":1}', fin: true });
    expect(socket.frames.filter((f) => f.fin)).toHaveLength(2);
  });

  it('sends a small shared message as one frame', () => {
    const { sut, socket } = newQueue();
    sut.sendShared('{"v":', Buffer.from('42'), '}');
    expect(socket.frames).toEqual([{ data: '{"v":42}', fin: true }]);
  });

  it('drops a client whose queue would pass the cap: close 1008, then destroyed after the grace', () => {
    jest.useFakeTimers();
    try {
      const { sut, socket, drops } = newQueue(4 * FRAME_BYTES);
      const body = Buffer.alloc(2 * FRAME_BYTES, 'c');
      sut.sendShared('[', body, ']');
      socket.bufferedAmount = FRAME_BYTES; // the client reads nothing
      sut.sendShared('[', body, ']');
      expect(socket.closed).toEqual([
        {
          code: SLOW_READER_CLOSE_CODE,
          reason: `notifications not read: over ${4 * FRAME_BYTES} bytes queued`,
        },
      ]);
      expect(drops).toHaveLength(1);
      expect(drops[0]).toBeGreaterThan(2 * FRAME_BYTES);
      expect(sut.open).toBe(false);
      // Nothing more is sent, and what waited is let go.
      socket.flushAll();
      const sent = socket.frames.length;
      sut.sendText('{}');
      expect(socket.frames).toHaveLength(sent);
      expect(sut.queued).toBe(FRAME_BYTES);
      expect(socket.terminated).toBe(false);
      jest.advanceTimersByTime(DROP_GRACE_MS);
      expect(socket.terminated).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('counts bytes waiting in the queue and in the socket against the cap', () => {
    const { sut, socket, drops } = newQueue(4 * FRAME_BYTES);
    sut.sendShared('[', Buffer.alloc(3 * FRAME_BYTES, 'd'), ']');
    expect(sut.queued).toBeGreaterThan(2 * FRAME_BYTES);
    socket.flushAll();
    expect(sut.queued).toBe(0);
    // Written out (a client that reads): the same message again is fine.
    sut.sendShared('[', Buffer.alloc(3 * FRAME_BYTES, 'd'), ']');
    expect(drops).toEqual([]);
  });
});
