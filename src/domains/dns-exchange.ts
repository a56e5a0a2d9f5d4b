import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { DecodedPacket, Packet, decode, encode, streamEncode } from 'dns-packet';
import { ResolverAddress } from '../config/resolver-address';

/** What one query to one resolver over one transport came to. */
export type ExchangeOutcome =
  | { kind: 'response'; packet: DecodedPacket }
  | { kind: 'timeout' }
  | { kind: 'network'; error: string };

/** DNS over TCP carries at most a 16-bit length; anything else from the peer is broken. */
const MAX_TCP_MESSAGE = 65535;
const HEADER_BYTES = 12;

/**
 * One query over UDP. The socket is connected to the resolver, so the kernel drops datagrams
 * from any other source; the random id and the echoed question must match too. A datagram that
 * does not match is ignored rather than failing the query, so a spoofer cannot make a lookup
 * fail early: the real answer can still arrive before the timeout.
 */
export function exchangeUdp(
  resolver: ResolverAddress,
  query: Packet,
  timeoutMs: number,
): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const socket = createSocket(resolver.family === 6 ? 'udp6' : 'udp4');
    let settled = false;
    const finish = (outcome: ExchangeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    socket.on('error', (err) => finish({ kind: 'network', error: err.message }));
    socket.on('message', (message) => {
      const packet = decodeOrNull(message);
      if (packet && isAnswerTo(query, packet)) finish({ kind: 'response', packet });
    });
    socket.connect(resolver.port, resolver.host, () => {
      if (!settled) socket.send(encode(query));
    });
  });
}

/** One query over TCP (RFC 1035 4.2.2: two-byte length prefix), used after a truncated answer. */
export function exchangeTcp(
  resolver: ResolverAddress,
  query: Packet,
  timeoutMs: number,
): Promise<ExchangeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: resolver.host, port: resolver.port });
    let settled = false;
    const finish = (outcome: ExchangeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    let received = Buffer.alloc(0);
    socket.setNoDelay(true);
    socket.on('error', (err) => finish({ kind: 'network', error: err.message }));
    socket.on('close', () =>
      finish({ kind: 'network', error: 'connection closed before the answer' }),
    );
    socket.on('connect', () => socket.write(streamEncode(query)));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const length = received.readUInt16BE(0);
      if (length < HEADER_BYTES || received.length > 2 + MAX_TCP_MESSAGE) {
        finish({ kind: 'network', error: 'malformed TCP answer' });
        return;
      }
      if (received.length < 2 + length) return;
      const packet = decodeOrNull(received.subarray(2, 2 + length));
      if (packet && isAnswerTo(query, packet)) finish({ kind: 'response', packet });
      else finish({ kind: 'network', error: 'TCP answer does not match the query' });
    });
  });
}

/** The answer carries our id and echoes our one question (name compared case-insensitively). */
export function isAnswerTo(query: Packet, answer: DecodedPacket): boolean {
  if (!answer.flag_qr || answer.id !== query.id) return false;
  const asked = query.questions?.[0];
  const echoed = answer.questions;
  if (!asked || !echoed || echoed.length !== 1) return false;
  return (
    echoed[0].name.toLowerCase() === asked.name.toLowerCase() &&
    echoed[0].type === asked.type &&
    (echoed[0].class ?? 'IN') === (asked.class ?? 'IN')
  );
}

function decodeOrNull(message: Buffer): DecodedPacket | null {
  try {
    return decode(message);
  } catch {
    return null;
  }
}
