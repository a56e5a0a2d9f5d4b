import { IncomingMessage, request, ServerResponse } from 'node:http';
import { commitmentOfBuffer } from '../../../src/tracks/commitment';
import { proofEntry } from '../../../src/verify/version-proofs';
import { buildVersion } from '../../../src/versions/version-builder';
import { listenLoopback } from './loopback-server';

/**
 * A gateway that lies, in front of an honest one (docs/verify.md, "Tests"): every request is
 * passed through, then the answer is changed as `mode` says. A liar that knows the proof format
 * rewrites proofs too, so that only the chain can tell.
 *
 * - `honest`: passes everything through;
 * - `flip-byte`: one byte of every body at `offset` (or its last byte) is flipped;
 * - `swap-names`: `a` is answered with `b`'s answer and `b`'s proof (re-labelled for `a`'s path);
 * - `replay`: answers recorded earlier (`record` mode) are served instead of the current ones:
 *   an older version served as current;
 * - `forge`: the answer is other bytes, proven by a version built for them and never published;
 * - `relocate`: a redirect's `Location` is replaced (a `_redirects` answer sent elsewhere);
 * - `unpin`: a request for `@<selector>` is answered from the current version, its proof
 *   relabelled with the selector (an alias or pinned URL served from another version).
 */
export type LyingMode =
  | { kind: 'honest' }
  | { kind: 'record' }
  | { kind: 'flip-byte'; offset: number; only?: string }
  | { kind: 'swap-names'; a: string; b: string }
  | { kind: 'replay' }
  | { kind: 'forge'; bytes: Buffer }
  | { kind: 'relocate'; location: string }
  | { kind: 'unpin'; selector: string };

interface Recorded {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface LyingGateway {
  url: string;
  mode: LyingMode;
  close(): Promise<void>;
}

export async function startLyingGateway(target: string): Promise<LyingGateway> {
  const upstream = new URL(target);
  const recorded = new Map<string, Recorded>();
  const gateway: LyingGateway = { url: '', mode: { kind: 'honest' }, close: async () => {} };

  const fetchUpstream = (req: IncomingMessage, path: string) =>
    new Promise<Recorded>((resolve, reject) => {
      const forwarded = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.on('end', () =>
            resolve({
              status: answer.statusCode ?? 502,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            }),
          );
          answer.on('error', reject);
        },
      );
      forwarded.on('error', reject);
      forwarded.end();
    });

  const lie = async (req: IncomingMessage): Promise<Recorded> => {
    const url = req.url ?? '/';
    const mode = gateway.mode;
    const isProof = url.startsWith('/proof/');
    switch (mode.kind) {
      case 'honest':
        return fetchUpstream(req, url);
      case 'record': {
        const answer = await fetchUpstream(req, url);
        recorded.set(url, answer);
        return answer;
      }
      case 'replay':
        return recorded.get(url) ?? fetchUpstream(req, url);
      case 'flip-byte': {
        const answer = await fetchUpstream(req, url);
        if (isProof || answer.body.length === 0 || answer.status >= 300) return answer;
        if (mode.only !== undefined && !url.endsWith(mode.only)) return answer;
        const body = Buffer.from(answer.body);
        body[Math.min(mode.offset, body.length - 1)] ^= 0x01;
        return { ...answer, body };
      }
      case 'swap-names': {
        if (!url.includes(mode.a)) return fetchUpstream(req, url);
        const answer = await fetchUpstream(req, url.replace(mode.a, mode.b));
        if (!isProof || answer.status !== 200) return answer;
        const proof = JSON.parse(answer.body.toString('utf8'));
        proof.target.path = proof.target.path.replace(mode.b, mode.a);
        return { ...answer, body: Buffer.from(JSON.stringify(proof)) };
      }
      case 'relocate': {
        const answer = await fetchUpstream(req, url);
        if (isProof || answer.status < 300 || answer.status > 399) return answer;
        return { ...answer, headers: { ...answer.headers, location: mode.location } };
      }
      case 'unpin': {
        const at = `@${mode.selector}`;
        if (!url.includes(at)) return fetchUpstream(req, url);
        const answer = await fetchUpstream(req, url.replace(at, ''));
        if (!isProof || answer.status !== 200) return answer;
        const proof = JSON.parse(answer.body.toString('utf8'));
        proof.selector = /^[0-9]+$/.test(mode.selector)
          ? { kind: 'pinned', version: Number(mode.selector) }
          : { kind: 'alias', name: mode.selector };
        return { ...answer, body: Buffer.from(JSON.stringify(proof)) };
      }
      case 'forge':
        if (!url.startsWith('/site/') && !url.startsWith('/proof/site/'))
          return fetchUpstream(req, url);
        return forge(req, url, mode.bytes, isProof, fetchUpstream);
    }
  };

  const server = await listenLoopback((req: IncomingMessage, res: ServerResponse) => {
    lie(req).then(
      (answer) => {
        const headers: Record<string, string | string[] | undefined> = {
          ...answer.headers,
          'content-length': String(answer.body.length),
          'transfer-encoding': undefined,
        };
        for (const name of Object.keys(headers))
          if (headers[name] === undefined) delete headers[name];
        res.writeHead(answer.status, headers);
        res.end(req.method === 'HEAD' ? undefined : answer.body);
      },
      () => res.destroy(),
    );
  });
  gateway.url = server.url;
  gateway.close = server.close;
  return gateway;
}

/**
 * Other bytes for the same path, under a version built for them alone and never published: the
 * proof is complete and consistent in itself, with the tape's current version number.
 */
async function forge(
  req: IncomingMessage,
  url: string,
  bytes: Buffer,
  isProof: boolean,
  fetchUpstream: (req: IncomingMessage, path: string) => Promise<Recorded>,
): Promise<Recorded> {
  const proofUrl = isProof ? url : url.replace(/^\/site\//, '/proof/site/');
  const honest = await fetchUpstream(req, proofUrl);
  if (honest.status !== 200) return honest;
  const real = JSON.parse(honest.body.toString('utf8'));
  const digest = commitmentOfBuffer(bytes);
  const entry = {
    name: real.target.name as string,
    commitment: digest.commitment,
    size: bytes.length,
    contentType: real.entry.contentType as string,
    metadata: Buffer.alloc(0),
    location: { kind: 'blob' as const },
  };
  const version = buildVersion([entry]);
  const proof = {
    ...real,
    root: version.rootCommitment.toString('hex'),
    nodes: [version.rootBytes.toString('base64')],
    entry: proofEntry(entry, true),
    content: { chunkHashes: digest.chunkHashes.toString('base64') },
  };
  if (isProof) return { ...honest, body: Buffer.from(JSON.stringify(proof)) };
  const page = await fetchUpstream(req, url);
  return {
    status: 200,
    headers: {
      ...page.headers,
      etag: `"${digest.commitment.toString('hex')}"`,
      'x-tape-commitment': digest.commitment.toString('hex'),
      'content-digest': undefined,
    },
    body: bytes,
  };
}
