import type { IncomingHttpHeaders } from 'node:http';
import type { ForwardedHeaderName, MeteringConfig } from '../config/metering.config';
import { eachHopFromRight, forwardedForAddress, xForwardedForAddress } from './forwarded-headers';
import { clientKeyOf, IpAddress, parseIp } from './ip-address';
import { TrustedProxies } from './trusted-proxies';

/** What a Fastify request, a Node IncomingMessage and Nest's request all have. */
export interface PeerRequest {
  readonly socket?: { readonly remoteAddress?: string } | null;
  readonly headers: IncomingHttpHeaders;
}

/** The key of a request whose socket has no address any more (closed before we looked). */
export const UNKNOWN_CLIENT = 'unknown';

/** More trusted hops than any real proxy chain; past it the walk stops where it is. */
const MAX_HOPS = 32;

/**
 * A connection's peer, parsed once: the peer of a socket never changes, and a browser sends
 * dozens of requests on one keep-alive connection. Kept on the socket under a symbol.
 */
const PEER = Symbol('tape.http.peer');

interface Peer {
  ip: IpAddress;
  key: string;
  trusted: boolean;
  /** Whose trusted list `trusted` was read from (one per gateway; tests make several). */
  by: ClientIpResolver;
}

type PeerSocket = { readonly remoteAddress?: string; [PEER]?: Peer };

/**
 * Who the client is, for metering, the access log and uploads. The socket peer, unless the peer is a trusted proxy; then
 * the forwarding header is walked from the right (each proxy appends the address it saw), trusted
 * hops are skipped and the first untrusted address is the client. A hop that is not an address
 * stops the walk and the last good hop counts as the client: nothing a client writes can make
 * the walk skip past an untrusted hop, and nothing here throws.
 */
export class ClientIpResolver {
  private readonly forwardedHeader: ForwardedHeaderName;
  private readonly addressOf: (element: string) => string | undefined;

  constructor(
    private readonly trusted: TrustedProxies,
    forwardedHeader: ForwardedHeaderName = 'x-forwarded-for',
  ) {
    this.forwardedHeader = forwardedHeader;
    this.addressOf = forwardedHeader === 'forwarded' ? forwardedForAddress : xForwardedForAddress;
  }

  /** The resolver of `gateway.metering.trusted_proxies` and `forwarded_header`. */
  static fromConfig(
    config: Pick<MeteringConfig, 'trusted_proxies' | 'forwarded_header'>,
  ): ClientIpResolver {
    return new ClientIpResolver(
      TrustedProxies.parse(config.trusted_proxies),
      config.forwarded_header,
    );
  }

  /** The client's IPv4 address, or its IPv6 /64 network (`2001:db8:1:2::/64`). */
  clientKey(request: PeerRequest): string {
    const peer = this.peerOf(request);
    if (peer === undefined) return UNKNOWN_CLIENT;
    if (!peer.trusted) return peer.key;
    return clientKeyOf(this.behindProxy(request, peer.ip));
  }

  clientIp(request: PeerRequest): IpAddress | undefined {
    const peer = this.peerOf(request);
    if (peer === undefined || !peer.trusted) return peer?.ip;
    return this.behindProxy(request, peer.ip);
  }

  private peerOf(request: PeerRequest): Peer | undefined {
    const socket: PeerSocket | null | undefined = request.socket;
    if (!socket) return undefined;
    const known = socket[PEER];
    if (known !== undefined && known.by === this) return known;
    const ip = parsePeer(socket.remoteAddress);
    if (!ip) return undefined; // closed before we looked: not remembered
    const trusted = !this.trusted.isEmpty && this.trusted.contains(ip);
    const peer: Peer = { ip, key: clientKeyOf(ip), trusted, by: this };
    // Only a plain object may carry it (tests hand in literal sockets; a frozen one cannot).
    if (Object.isExtensible(socket)) (socket as { [PEER]?: Peer })[PEER] = peer;
    return peer;
  }

  /** The client behind a trusted proxy `peer`, from the forwarding header. */
  private behindProxy(request: PeerRequest, peer: IpAddress): IpAddress {
    const header = request.headers[this.forwardedHeader];
    if (header === undefined || header.length === 0) return peer;
    let client = peer;
    eachHopFromRight(Array.isArray(header) ? header.join(',') : header, MAX_HOPS, (element) => {
      const text = this.addressOf(element);
      const hop = text === undefined ? undefined : parseIp(text);
      if (!hop) return false;
      client = hop;
      return this.trusted.contains(hop);
    });
    return client;
  }
}

/** A socket's own address; link-local peers carry a zone (`fe80::1%eth0`) that is not part of it. */
function parsePeer(remoteAddress: string | undefined): IpAddress | undefined {
  if (remoteAddress === undefined) return undefined;
  const zone = remoteAddress.indexOf('%');
  return parseIp(zone === -1 ? remoteAddress : remoteAddress.slice(0, zone));
}

/**
 * A client given by a caller: an IP address (`203.0.113.9`, `::ffff:203.0.113.9`, `2001:db8::1`)
 * or a key from `clientKey` (`2001:db8:0:0::/64`, `unknown`). `undefined` (a socket that closed
 * before its address was read) is the `unknown` client. Anything else is a bug in the caller and
 * throws.
 */
export function clientKeyFromText(text: string | undefined): string {
  if (text === undefined || text === UNKNOWN_CLIENT) return UNKNOWN_CLIENT;
  if (typeof text !== 'string') throw new TypeError(`client must be a string, not ${typeof text}`);
  const ip = parseIp(text.endsWith('::/64') ? text.slice(0, -3) : text);
  if (ip && (ip.family === 6 || !text.endsWith('/64'))) return clientKeyOf(ip);
  throw new TypeError(`not an IP address or client key: ${JSON.stringify(text.slice(0, 64))}`);
}
