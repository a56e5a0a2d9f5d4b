import WebSocket from 'ws';

/** A PubSub client that subscribes, takes the answer, then never reads another byte. */
export interface StalledSubscriber {
  ws: WebSocket;
  /** The close code and reason the client saw once it reads again (`resume`); 1006: none came. */
  closed: Promise<{ code: number; reason: string }>;
  /** Starts reading again: queued notifications, then whatever closed the socket. */
  resume(): void;
  /** Notifications read since `resume`. */
  received(): number;
}

/** Subscribes from `from` (a loopback address: one client address per test role). */
export async function stalledSubscriber(
  wsUrl: string,
  method: string,
  params: unknown[],
  from = '127.0.0.1',
): Promise<StalledSubscriber> {
  const ws = new WebSocket(wsUrl, { localAddress: from });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('error', () => undefined);
  let notifications = 0;
  const acknowledged = new Promise<void>((resolve, reject) => {
    ws.once('close', (code, reason) =>
      reject(new Error(`closed before the answer: ${code} ${reason.toString()}`)),
    );
    ws.on('message', (m: Buffer) => {
      const message = JSON.parse(m.toString('utf8')) as { id?: number; error?: unknown };
      if (message.id !== 1) {
        notifications++;
        return;
      }
      if (message.error) reject(new Error(JSON.stringify(message.error)));
      else resolve();
    });
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  await acknowledged;
  // Stops reading the socket: the kernel's buffers fill, then the server's queue for it does.
  ws.pause();
  return { ws, closed, resume: () => ws.resume(), received: () => notifications };
}
