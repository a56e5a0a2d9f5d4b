import {
  AUTHENTIC_DATA,
  Answer,
  DecodedPacket,
  RECURSION_DESIRED,
  decode,
  encode,
} from 'dns-packet';
import { interpretAnswer } from './dns-txt-lookup';

const NAME = '_tape.shop.example';
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

/** Builds a response on the wire and decodes it, as the client sees it. */
function response(
  answers: Answer[],
  { ad = true, rcode = 'NOERROR' }: { ad?: boolean; rcode?: keyof typeof RCODE } = {},
): DecodedPacket {
  const flags = RECURSION_DESIRED | (ad ? AUTHENTIC_DATA : 0) | RCODE[rcode];
  return decode(
    encode({
      type: 'response',
      id: 1,
      flags,
      questions: [{ type: 'TXT', name: NAME, class: 'IN' }],
      answers,
    }),
  );
}

function txt(name: string, ttl: number, ...strings: string[]): Answer {
  return { type: 'TXT', name, ttl, class: 'IN', data: strings };
}

function cname(name: string, ttl: number, target: string): Answer {
  return { type: 'CNAME', name, ttl, class: 'IN', data: target };
}

describe('interpretAnswer', () => {
  it('returns the TXT records of a NOERROR answer with AD, with the smallest TTL', () => {
    const result = interpretAnswer(
      NAME,
      response([txt(NAME, 300, 'abc', 'def'), txt(NAME, 120, 'ghi')]),
    );
    expect(result).toEqual({
      kind: 'records',
      records: [[Buffer.from('abc'), Buffer.from('def')], [Buffer.from('ghi')]],
      ttl: 120,
    });
  });

  it('refuses the same answer without the AD flag', () => {
    expect(interpretAnswer(NAME, response([txt(NAME, 300, 'abc')], { ad: false }))).toEqual({
      kind: 'miss',
      reason: 'insecure',
    });
  });

  it('maps rcodes to misses', () => {
    expect(interpretAnswer(NAME, response([], { rcode: 'NXDOMAIN' }))).toEqual({
      kind: 'miss',
      reason: 'nxdomain',
    });
    expect(interpretAnswer(NAME, response([], { rcode: 'SERVFAIL', ad: false }))).toEqual({
      kind: 'miss',
      reason: 'servfail',
    });
    expect(interpretAnswer(NAME, response([txt(NAME, 300, 'abc')], { rcode: 'REFUSED' }))).toEqual({
      kind: 'miss',
      reason: 'refused',
    });
  });

  it('sees NODATA when no TXT record is owned by the name', () => {
    expect(interpretAnswer(NAME, response([]))).toEqual({ kind: 'miss', reason: 'nodata' });
    expect(interpretAnswer(NAME, response([txt('other.example', 300, 'abc')]))).toEqual({
      kind: 'miss',
      reason: 'nodata',
    });
  });

  it('follows a CNAME chain inside the answer, taking the TTL of every hop', () => {
    const result = interpretAnswer(
      NAME,
      response([
        cname(NAME.toUpperCase(), 90, 'b.example'),
        cname('b.example', 600, 'c.example'),
        txt('c.example', 3000, 'abc'),
        txt('unrelated.example', 1, 'zzz'),
      ]),
    );
    expect(result).toEqual({ kind: 'records', records: [[Buffer.from('abc')]], ttl: 90 });
  });

  it('stops on a CNAME loop', () => {
    const result = interpretAnswer(
      NAME,
      response([cname(NAME, 90, 'b.example'), cname('b.example', 90, NAME)]),
    );
    expect(result).toEqual({ kind: 'miss', reason: 'nodata' });
  });
});
