import { randomInt } from 'node:crypto';
import {
  AUTHENTIC_DATA,
  DNSSEC_OK,
  DecodedPacket,
  OptAnswer,
  Packet,
  RECURSION_DESIRED,
} from 'dns-packet';
import { ExchangeOutcome, exchangeTcp, exchangeUdp } from './dns-exchange';
import { ResolverAddress } from '../config/resolver-address';
import { TxtLookup, TxtLookupResult, TxtMiss, TxtMissReason } from './txt-lookup';

export interface DnsTxtLookupOptions {
  /** Tried in order; the next one is asked after a timeout, SERVFAIL, REFUSED or socket error. */
  resolvers: ResolverAddress[];
  /** Per resolver and transport. */
  timeoutMs: number;
  /** EDNS buffer size we advertise; 1232 avoids IP fragmentation (DNS flag day 2020). */
  udpPayloadSize?: number;
}

/** Answers that are the truth about the name: asking another resolver would not change them. */
const FINAL_MISSES: ReadonlySet<TxtMissReason> = new Set(['nxdomain', 'nodata', 'insecure']);
/** CNAME hops followed inside one answer before giving up (resolvers chase chains for us). */
const MAX_CNAME_HOPS = 8;

/**
 * TXT lookups with dns-packet against validating resolvers: RD and AD set, EDNS with the DO
 * bit, only NOERROR answers with AD count. The gateway does not validate signatures itself;
 * it trusts the AD flag of resolvers it is configured with, so they must sit on a trusted path
 * (the same host, or a private network).
 */
export class DnsTxtLookup extends TxtLookup {
  private readonly udpPayloadSize: number;

  constructor(private readonly options: DnsTxtLookupOptions) {
    super();
    if (options.resolvers.length === 0) throw new Error('DnsTxtLookup needs a resolver');
    this.udpPayloadSize = options.udpPayloadSize ?? 1232;
  }

  get resolvers(): readonly ResolverAddress[] {
    return this.options.resolvers;
  }

  async lookup(name: string): Promise<TxtLookupResult> {
    let last: TxtMiss = { kind: 'miss', reason: 'timeout' };
    for (const resolver of this.options.resolvers) {
      const result = await this.ask(resolver, name);
      if (result.kind === 'records' || FINAL_MISSES.has(result.reason)) return result;
      last = result;
    }
    return last;
  }

  private async ask(resolver: ResolverAddress, name: string): Promise<TxtLookupResult> {
    let outcome: ExchangeOutcome = await exchangeUdp(
      resolver,
      this.query(name),
      this.options.timeoutMs,
    );
    if (outcome.kind === 'response' && outcome.packet.flag_tc) {
      outcome = await exchangeTcp(resolver, this.query(name), this.options.timeoutMs);
    }
    if (outcome.kind !== 'response') return miss(outcome.kind);
    return interpretAnswer(name, outcome.packet);
  }

  private query(name: string): Packet {
    const opt = {
      type: 'OPT',
      name: '.',
      udpPayloadSize: this.udpPayloadSize,
      flags: DNSSEC_OK,
      options: [],
    } as unknown as OptAnswer;
    return {
      type: 'query',
      // A fresh unpredictable id per query, the first of the anti-spoofing checks.
      id: randomInt(0, 65536),
      flags: RECURSION_DESIRED | AUTHENTIC_DATA,
      questions: [{ type: 'TXT', name, class: 'IN' }],
      additionals: [opt],
    };
  }
}

/** Reads a resolver's answer: only NOERROR with AD yields records. */
export function interpretAnswer(name: string, packet: DecodedPacket): TxtLookupResult {
  const rcode = (packet as DecodedPacket & { rcode?: string }).rcode;
  if (rcode === 'NXDOMAIN') return miss('nxdomain');
  if (rcode === 'SERVFAIL') return miss('servfail');
  if (rcode !== 'NOERROR') return miss('refused');
  if (!packet.flag_ad) return miss('insecure');

  let owner = name.toLowerCase();
  let ttl = Number.POSITIVE_INFINITY;
  const answers = packet.answers ?? [];
  for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
    const records: Buffer[][] = [];
    let next: string | undefined;
    for (const answer of answers) {
      if (answer.name.toLowerCase() !== owner || answer.type === 'OPT') continue;
      if (answer.class !== undefined && answer.class !== 'IN') continue;
      if (answer.type === 'TXT') {
        records.push(toStrings(answer.data));
        ttl = Math.min(ttl, answer.ttl ?? 0);
      } else if (answer.type === 'CNAME' && next === undefined) {
        next = answer.data.toLowerCase();
        ttl = Math.min(ttl, answer.ttl ?? 0);
      }
    }
    if (records.length > 0) return { kind: 'records', records, ttl };
    if (next === undefined) break;
    owner = next;
  }
  return miss('nodata');
}

function toStrings(data: string | Buffer | (string | Buffer)[]): Buffer[] {
  const parts = Array.isArray(data) ? data : [data];
  return parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part));
}

function miss(reason: TxtMissReason): TxtMiss {
  return { kind: 'miss', reason };
}
