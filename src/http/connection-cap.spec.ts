import { createServer, Server } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { eventually } from '../../test/support/jest/eventually';
import { capConnectionsPerAddress, ConnectionCapOptions, connectionKey } from './connection-cap';

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  sockets.splice(0).forEach((s) => s.destroy());
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

/** An HTTP server on loopback with the cap installed; `accepted` counts what reached HTTP. */
async function newTestServer(options: ConnectionCapOptions) {
  const server = createServer((_req, res) => res.end('ok'));
  let accepted = 0;
  // Listeners after the cap's still see a refused socket, already destroyed.
  server.on('connection', (socket: Socket) => {
    if (!socket.destroyed) accepted++;
  });
  capConnectionsPerAddress(server, options);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, accepted: () => accepted };
}

/**
 * A socket from `from` (any 127/8 address is this machine), resolved once connected; its
 * `closed` turns true once the server has closed it.
 */
async function open(port: number, from = '127.0.0.1'): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  socket.on('error', () => undefined);
  // Reads the server's FIN: `closed` then follows (allowHalfOpen is off).
  socket.resume();
  sockets.push(socket);
  await new Promise((r) => socket.once('connect', r));
  return socket;
}

async function get(port: number, from: string): Promise<string> {
  const socket = await open(port, from);
  socket.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  await new Promise((r) => socket.once('close', r));
  return text;
}

describe('capConnectionsPerAddress', () => {
  it('closes connections of one address past the cap at once; other addresses still get answers', async () => {
    // Issue 34, finding 4: idle sockets from one address took every descriptor.
    const refusals: { address: string; refused: number }[] = [];
    const { port, accepted } = await newTestServer({
      maxPerAddress: 3,
      onRefused: (r) => refusals.push(r),
    });
    const held = [await open(port), await open(port), await open(port)];
    const extra = [await open(port), await open(port)];
    await eventually('the extra sockets are closed', () => extra.every((s) => s.closed));
    expect(held.some((s) => s.closed)).toBe(false);
    expect(accepted()).toBe(3);
    expect(refusals).toEqual([{ address: '127.0.0.1', refused: 1 }]);
    expect(await get(port, '127.0.0.2')).toMatch(/^HTTP\/1\.1 200 /);

    // A held connection that closes makes room for one more.
    held[0].destroy();
    await eventually('the server saw the close', async () => {
      const next = await open(port);
      await new Promise((r) => setTimeout(r, 20));
      return !next.closed;
    });
  });

  it('does not cap trusted proxies, whose one address carries many clients', async () => {
    const { port, accepted } = await newTestServer({
      maxPerAddress: 1,
      exempt: (address) => address === '127.0.0.3',
    });
    const viaProxy = [await open(port, '127.0.0.3'), await open(port, '127.0.0.3')];
    await eventually('both reached the HTTP server', () => accepted() === 2);
    expect(viaProxy.some((s) => s.closed)).toBe(false);
  });

  it('does not cap the exempt addresses (loopback by default), and still caps the others', async () => {
    const { port, accepted } = await newTestServer({ maxPerAddress: 1, exemptIps: ['127.0.0.1'] });
    const local = [await open(port), await open(port), await open(port)];
    await eventually('all three local ones reached the HTTP server', () => accepted() === 3);
    expect(local.some((s) => s.closed)).toBe(false);
    await open(port, '127.0.0.5');
    const second = await open(port, '127.0.0.5');
    await eventually('the second from 127.0.0.5 is closed', () => second.closed);
  });

  it('is off with a cap of 0', async () => {
    const { port, accepted } = await newTestServer({ maxPerAddress: 0 });
    await Promise.all([open(port), open(port), open(port)]);
    await eventually('all three reached the HTTP server', () => accepted() === 3);
  });

  it('counts an IPv4-mapped peer as its IPv4 address and an IPv6 peer by its /64', () => {
    expect(connectionKey('203.0.113.9')).toBe('203.0.113.9');
    expect(connectionKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(connectionKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(connectionKey('2001:DB8:0:1:ffff:2:3:4')).toBe('2001:db8:0:1::/64');
    expect(connectionKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(connectionKey('::1')).toBe('0:0:0:0::/64');
    expect(connectionKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});
