import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { answerInOrder, LingerLimits, lingerAfterAnswer } from './lingering-close';

/** A test server and, for its latest connection, how long its socket stayed open after the answer. */
interface Refusing {
  server: Server;
  /** Milliseconds from the end of the answer to the server's socket closing. */
  lingered(): Promise<number>;
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Refusing> {
  let lingered: Promise<number> = Promise.reject(new Error('no request'));
  lingered.catch(() => undefined);
  const server = createServer((req, res) => {
    lingered = new Promise((resolve) => {
      res.once('finish', () => {
        const answered = Date.now();
        req.socket.once('close', () => resolve(Date.now() - answered));
      });
    });
    handler(req, res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, lingered: () => lingered })),
  );
}

/** A server that refuses every body unread, with 413 and `Connection: close`. */
function refusingServer(limits: LingerLimits, linger = true): Promise<Refusing> {
  return listen((req, res) => {
    res.setHeader('connection', 'close');
    if (linger) lingerAfterAnswer(req, res, limits);
    res.statusCode = 413;
    res.end('too large');
  });
}

interface Exchange {
  writeError: string | undefined;
  response: string;
}

/**
 * Sends a head declaring `declared` bytes, then `body` (or nothing), and reads the answer. Like
 * an HTTP client, it closes its side once the server has closed its own (`Connection: close`),
 * unless `stubborn`: then it keeps the connection open, as a client that never stops would.
 */
function exchange(
  { server }: Refusing,
  declared: number,
  body?: Buffer,
  stubborn = false,
): Promise<Exchange> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    let writeError: string | undefined;
    let response = '';
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(`PUT /x HTTP/1.1\r\nHost: a\r\nContent-Length: ${declared}\r\n\r\n`);
      if (body) {
        socket.write(body, (error) => {
          if (error) writeError = (error as NodeJS.ErrnoException).code;
        });
      }
    });
    socket.on('data', (d: Buffer) => (response += d.toString('latin1')));
    // A stubborn client's answer is complete when the server shuts its side (FIN).
    if (stubborn) socket.on('end', () => resolve({ writeError, response }));
    socket.on('end', () => {
      if (!stubborn) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (writeError ??= error.code));
    socket.on('close', () => resolve({ writeError, response }));
    clients.add(socket);
  });
}

const clients = new Set<Socket>();
const close = ({ server }: Refusing) => {
  clients.forEach((socket) => socket.destroy());
  clients.clear();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
};
const MiB = 1024 * 1024;

describe('lingerAfterAnswer', () => {
  it('reads a refused body to its end, so the client finishes writing and reads the answer', async () => {
    const server = await refusingServer({ ms: 5_000, bytes: 64 * MiB });
    try {
      const body = Buffer.alloc(24 * MiB, 1);
      const result = await exchange(server, body.length, body);
      expect(result.writeError).toBeUndefined();
      expect(result.response).toMatch(/^HTTP\/1\.1 413 /);
      expect(result.response).toContain('too large');
    } finally {
      await close(server);
    }
  });

  it('without it, the same client is reset (the behaviour it exists to prevent)', async () => {
    const server = await refusingServer({ ms: 5_000, bytes: 64 * MiB }, false);
    try {
      const body = Buffer.alloc(24 * MiB, 1);
      const result = await exchange(server, body.length, body);
      expect(['EPIPE', 'ECONNRESET']).toContain(result.writeError);
    } finally {
      await close(server);
    }
  });

  it('stops after its byte cap: a client that never stops sending is cut off', async () => {
    const server = await refusingServer({ ms: 60_000, bytes: 2 * MiB });
    try {
      // Declares 1 GiB and sends 256 MiB: cut off after about 2 MiB (checked every 20 ms), not after
      // the 60 s time cap (nor after reading all 256 MiB).
      const result = await exchange(server, 1024 * MiB, Buffer.alloc(256 * MiB, 1));
      expect(result.response).toMatch(/^HTTP\/1\.1 413 /);
      expect(['EPIPE', 'ECONNRESET']).toContain(result.writeError);
      expect(await server.lingered()).toBeLessThan(5_000);
    } finally {
      await close(server);
    }
  });

  it('stops after its time cap when the client neither sends nor closes', async () => {
    const server = await refusingServer({ ms: 300, bytes: 64 * MiB });
    try {
      const pending = exchange(server, MiB, undefined, true);
      const lingered = await new Promise<number>((resolve) =>
        setTimeout(() => resolve(server.lingered()), 100),
      );
      expect(lingered).toBeGreaterThanOrEqual(250);
      expect(lingered).toBeLessThan(5_000);
      expect((await pending).response).toMatch(/^HTTP\/1\.1 413 /);
    } finally {
      await close(server);
    }
  });

  it('closes at once after a body that was already read whole', async () => {
    const server = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('connection', 'close');
        lingerAfterAnswer(req, res, { ms: 60_000, bytes: MiB });
        res.end('ok');
      });
    });
    try {
      const result = await exchange(server, 4, Buffer.from('abcd'), true);
      expect(result.response).toMatch(/^HTTP\/1\.1 200 /);
      expect(await server.lingered()).toBeLessThan(5_000);
    } finally {
      await close(server);
    }
  });
});

describe('answerInOrder', () => {
  /** Writes `input` on one connection and reads until the server closes it (or `ms` pass). */
  function converse(server: Server, input: (Buffer | string)[], ms = 3_000): Promise<string> {
    const { port } = server.address() as AddressInfo;
    return new Promise<string>((resolve) => {
      let text = '';
      const socket = connect({ port, host: '127.0.0.1' }, () =>
        input.forEach((i) => socket.write(i)),
      );
      const timer = setTimeout(() => socket.destroy(), ms);
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(text);
      });
    });
  }

  it('drops unexecuted a request pipelined behind a refused body, on every Node', async () => {
    // Node 20 parses the pipelined request only once the refused body is read out; Node 24
    // parses ahead, before the refusal is answered: either way it must never run.
    const seen: (string | undefined)[] = [];
    const server = await listen(
      answerInOrder((req, res) => {
        seen.push(req.url);
        res.setHeader('connection', 'close');
        lingerAfterAnswer(req, res, { ms: 5_000, bytes: 64 * MiB });
        res.statusCode = 413;
        // Answer after the whole pipelined input is on the socket.
        setTimeout(() => res.end('too large'), 100);
      }),
    );
    try {
      const body = Buffer.alloc(64 * 1024, 1);
      const response = await converse(server.server, [
        `PUT /refused HTTP/1.1\r\nHost: a\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
        'DELETE /pipelined HTTP/1.1\r\nHost: a\r\n\r\n',
      ]);
      expect(response).toMatch(/^HTTP\/1\.1 413 /);
      expect(response.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      expect(seen).toEqual(['/refused']);
    } finally {
      await close(server);
    }
  });

  it('answers pipelined requests one after the other, in order, when nothing is refused', async () => {
    const order: string[] = [];
    const server = await listen(
      answerInOrder((req, res) => {
        order.push(`start ${req.url}`);
        req.resume();
        req.once('end', () =>
          // The first answer is the slowest: the second must still wait for it.
          setTimeout(
            () => {
              order.push(`end ${req.url}`);
              res.end(req.url);
            },
            req.url === '/a' ? 100 : 0,
          ),
        );
      }),
    );
    try {
      const response = await converse(server.server, [
        'GET /a HTTP/1.1\r\nHost: a\r\n\r\n',
        'GET /b HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
      ]);
      expect(response.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
      expect(response.indexOf('/a')).toBeLessThan(response.indexOf('/b'));
      expect(order).toEqual(['start /a', 'end /a', 'start /b', 'end /b']);
    } finally {
      await close(server);
    }
  });
});
