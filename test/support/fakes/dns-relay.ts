import { createSocket, RemoteInfo, Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, Server, Socket } from 'node:net';
import {
  Answer,
  DecodedPacket,
  RECURSION_AVAILABLE,
  TRUNCATED_RESPONSE,
  decode,
  encode,
} from 'dns-packet';

/**
 * A DNS front on loopback (UDP and TCP on one port) for tests: it forwards to a real resolver
 * and counts what passes, or plays a part a real server will not play on demand: a resolver
 * that drops everything, one that truncates every UDP answer, or a scripted one.
 */
export type RelayMode = 'forward' | 'drop' | 'truncate';

export interface RelayedQuery {
  transport: 'udp' | 'tcp';
  id: number;
  name: string;
  type: string;
  flags: number;
  /** The EDNS OPT record, when the query had one. */
  opt?: { udpPayloadSize: number; flags: number };
}

/** Returns the raw replies to send (wire format, no TCP length prefix), or undefined for `mode`. */
export type RelayScript = (query: DecodedPacket, transport: 'udp' | 'tcp') => Buffer[] | undefined;

export interface DnsRelayOptions {
  upstream?: { host: string; port: number };
  host?: '127.0.0.1' | '::1';
}

export class DnsRelay {
  mode: RelayMode = 'forward';
  script?: RelayScript;
  readonly queries: RelayedQuery[] = [];
  private readonly sockets = new Set<Socket | UdpSocket>();

  private constructor(
    readonly host: string,
    readonly port: number,
    private readonly udp: UdpSocket,
    private readonly tcp: Server,
    private readonly upstream?: { host: string; port: number },
  ) {}

  static async start(options: DnsRelayOptions = {}): Promise<DnsRelay> {
    const host = options.host ?? '127.0.0.1';
    for (let attempt = 0; attempt < 20; attempt++) {
      const udp = createSocket(host === '::1' ? 'udp6' : 'udp4');
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(0, host, () => resolve());
      });
      const port = udp.address().port;
      const tcp = createServer();
      const listening = await new Promise<boolean>((resolve) => {
        tcp.once('error', () => resolve(false));
        tcp.listen(port, host, () => resolve(true));
      });
      if (!listening) {
        udp.close();
        continue;
      }
      const relay = new DnsRelay(host, port, udp, tcp, options.upstream);
      udp.on('message', (message, rinfo) => relay.onUdp(message, rinfo));
      tcp.on('connection', (socket) => relay.onTcp(socket));
      return relay;
    }
    throw new Error('no port free for both UDP and TCP');
  }

  /** `ip:port` or `[v6]:port`, as `gateway.site.dns_resolvers` takes it. */
  get address(): string {
    return this.host.includes(':') ? `[${this.host}]:${this.port}` : `${this.host}:${this.port}`;
  }

  /** Queries seen for a name (case-insensitive), optionally over one transport. */
  count(name: string, transport?: 'udp' | 'tcp'): number {
    const wanted = name.toLowerCase();
    return this.queries.filter(
      (q) => q.name.toLowerCase() === wanted && (!transport || q.transport === transport),
    ).length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) {
      if ('destroy' in socket) socket.destroy();
      else socket.close();
    }
    this.udp.close();
    await new Promise<void>((resolve) => this.tcp.close(() => resolve()));
  }

  private onUdp(message: Buffer, rinfo: RemoteInfo): void {
    const query = this.record(message, 'udp');
    if (!query) return;
    const send = (reply: Buffer) => this.udp.send(reply, rinfo.port, rinfo.address);
    const scripted = this.script?.(query, 'udp');
    if (scripted) return scripted.forEach(send);
    switch (this.mode) {
      case 'drop':
        return;
      case 'truncate':
        return send(truncatedReplyTo(query));
      case 'forward':
        return this.forwardUdp(message, send);
    }
  }

  private forwardUdp(message: Buffer, send: (reply: Buffer) => void): void {
    if (!this.upstream) return;
    const { host, port } = this.upstream;
    const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    this.sockets.add(socket);
    const done = () => {
      clearTimeout(timer);
      if (this.sockets.delete(socket)) socket.close();
    };
    const timer = setTimeout(done, 10000);
    socket.on('error', done);
    socket.on('message', (reply) => {
      send(reply);
      done();
    });
    socket.send(message, port, host);
  }

  private onTcp(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        this.answerTcp(client, message);
      }
    });
  }

  private answerTcp(client: Socket, message: Buffer): void {
    const query = this.record(message, 'tcp');
    if (!query) return;
    const send = (reply: Buffer) => client.write(Buffer.concat([lengthPrefix(reply), reply]));
    const scripted = this.script?.(query, 'tcp');
    if (scripted) return scripted.forEach(send);
    if (this.mode === 'drop' || !this.upstream) return;
    const upstream = connect(this.upstream.port, this.upstream.host);
    this.sockets.add(upstream);
    upstream.on('error', () => upstream.destroy());
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.write(Buffer.concat([lengthPrefix(message), message]));
    let received = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        send(received.subarray(2, 2 + received.readUInt16BE(0)));
        upstream.destroy();
      }
    });
  }

  private record(message: Buffer, transport: 'udp' | 'tcp'): DecodedPacket | null {
    let query: DecodedPacket;
    try {
      query = decode(message);
    } catch {
      return null;
    }
    const question = query.questions?.[0];
    const opt = query.additionals?.find((a) => a.type === 'OPT') as
      { udpPayloadSize: number; flags: number } | undefined;
    this.queries.push({
      transport,
      id: query.id ?? 0,
      name: question?.name ?? '',
      type: question?.type ?? '',
      flags: query.flags ?? 0,
      opt: opt ? { udpPayloadSize: opt.udpPayloadSize, flags: opt.flags } : undefined,
    });
    return query;
  }
}

export interface ReplyOptions {
  answers?: Answer[];
  ad?: boolean;
  rcode?: 'NOERROR' | 'SERVFAIL' | 'NXDOMAIN' | 'REFUSED';
  /** Override the echoed id or question name (to play a spoofer). */
  id?: number;
  name?: string;
  truncated?: boolean;
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const AD_FLAG = 1 << 5;
const RD_FLAG = 1 << 8;

/** A response to `query` in wire format. */
export function replyTo(query: DecodedPacket, options: ReplyOptions = {}): Buffer {
  const question = query.questions?.[0] ?? { name: '', type: 'TXT' as const };
  let flags = RD_FLAG | RECURSION_AVAILABLE | RCODES[options.rcode ?? 'NOERROR'];
  if (options.ad) flags |= AD_FLAG;
  if (options.truncated) flags |= TRUNCATED_RESPONSE;
  return encode({
    type: 'response',
    id: options.id ?? query.id,
    flags,
    questions: [{ name: options.name ?? question.name, type: question.type, class: 'IN' }],
    answers: options.answers ?? [],
  });
}

export function txtAnswer(name: string, ttl: number, ...strings: string[]): Answer {
  return { type: 'TXT', name, ttl, class: 'IN', data: strings };
}

function truncatedReplyTo(query: DecodedPacket): Buffer {
  return replyTo(query, { truncated: true });
}

function lengthPrefix(message: Buffer): Buffer {
  const prefix = Buffer.alloc(2);
  prefix.writeUInt16BE(message.length);
  return prefix;
}
