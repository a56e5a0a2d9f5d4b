import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import { TrackKind } from '../../src/chain/account-layouts';
import { ChainServices } from '../../src/chain/chain.module';
import { ChainConfig } from '../../src/config/chain.config';
import { commitmentToHex } from '../../src/tracks/commitment';
import { SegmentingHasher, TrackLayout, splitFileIntoTracks } from '../../src/tracks/track-layout';
import { UPLOAD_HEADERS, signUpload } from '../../src/upload/upload-auth';

/** Bytes of one PUT: in memory, or a slice of a file streamed from disk (big objects). */
export type PutBody = Buffer | { path: string; start: number; size: number };

export interface PutOptions {
  /** The segment's commitment (hex) when the bytes are one segment of a manifest track. */
  segment?: string;
  /** Sign as this key (default: the tape's keypair). */
  signer?: Keypair;
  /** Sign over these values instead of the real ones (lying or stale requests). */
  claim?: Partial<{ commitment: string; size: number; tape: string }>;
  timestamp?: number;
  /** Replace or drop headers after signing. */
  headers?: Record<string, string | undefined>;
}

export interface PutReply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

export interface TestTape {
  keypair: Keypair;
  address: PublicKey;
}

/** A track written on chain, with what its upload needs. */
export interface WrittenTrack {
  address: PublicKey;
  tape: TestTape;
  layout: TrackLayout;
}

/**
 * For tests and benchmarks only (the product uploader is src/cli/deploy): a writer that funds a
 * wallet from the local network's faucet, creates tapes, registers tracks with WriteTrack
 * through the chain writer, and uploads their bytes with signed `PUT /upload/{track}` requests.
 */
export class UploadClient {
  readonly chain: ChainServices;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(
    readonly gatewayUrl: string,
    rpcUrl: string,
  ) {
    this.chain = new ChainServices(Object.assign(new ChainConfig(), { rpc_url: rpcUrl }));
  }

  async fundedWallet(): Promise<Keypair> {
    const wallet = Keypair.generate();
    await this.chain.faucet.requestStorageTokens(wallet.publicKey, 1_000_000_000_000n);
    await this.chain.faucet.requestAirdrop(wallet.publicKey, 100 * LAMPORTS_PER_SOL);
    return wallet;
  }

  async createTape(wallet: Keypair, capacity: number, epochs: number): Promise<TestTape> {
    const config = await this.chain.reader.networkConfig();
    const keypair = Keypair.generate();
    await this.chain.writer.send(
      [
        this.chain.ix.createTape({
          payer: wallet.publicKey,
          authority: keypair.publicKey,
          mint: config.mint,
          treasury: config.treasury,
          capacity,
          epochs,
        }),
      ],
      [wallet, keypair],
    );
    return { keypair, address: this.chain.ix.pdas.tape(keypair.publicKey) };
  }

  /** WriteTrack for these bytes (blob, or manifest when larger than `segmentBytes`). */
  async writeTrack(
    wallet: Keypair,
    tape: TestTape,
    layout: TrackLayout,
    contentType: string,
  ): Promise<WrittenTrack> {
    const commitment =
      layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment;
    await this.chain.writer.send(
      [
        this.chain.ix.writeTrack({
          payer: wallet.publicKey,
          signer: tape.keypair.publicKey,
          tape: tape.address,
          commitment,
          size: layout.size,
          kind: layout.kind === 'blob' ? TrackKind.Blob : TrackKind.Manifest,
          contentType,
        }),
      ],
      [wallet, tape.keypair],
    );
    return { address: this.chain.ix.pdas.track(tape.address, commitment), tape, layout };
  }

  /** WriteTrack, then every upload the track needs (segments, then the manifest). */
  async store(
    wallet: Keypair,
    tape: TestTape,
    source: Buffer | string,
    contentType: string,
    segmentBytes: number,
  ): Promise<WrittenTrack> {
    const layout =
      typeof source === 'string'
        ? await splitFileIntoTracks(source, segmentBytes)
        : new SegmentingHasher(segmentBytes).update(source).digest();
    const written = await this.writeTrack(wallet, tape, layout, contentType);
    await this.uploadAll(written, source);
    return written;
  }

  async uploadAll(track: WrittenTrack, source: Buffer | string): Promise<void> {
    const slice = (start: number, size: number): PutBody =>
      typeof source === 'string'
        ? { path: source, start, size }
        : source.subarray(start, start + size);
    const expectOk = (reply: PutReply, what: string) => {
      if (reply.status !== 200)
        throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
    };
    const { layout } = track;
    if (layout.kind === 'blob') {
      expectOk(await this.put(track, slice(0, layout.size)), 'blob upload');
      return;
    }
    for (let i = 0; i < layout.segments.length; i += 4) {
      await Promise.all(
        layout.segments.slice(i, i + 4).map(async (segment) =>
          expectOk(
            await this.put(track, slice(segment.offset, segment.size), {
              segment: commitmentToHex(segment.commitment),
            }),
            `segment at ${segment.offset}`,
          ),
        ),
      );
    }
    expectOk(await this.put(track, layout.manifestBytes), 'manifest upload');
  }

  /** One signed `PUT /upload/{track}`; resolves with the status and the parsed JSON body. */
  put(track: WrittenTrack, body: PutBody, options: PutOptions = {}): Promise<PutReply> {
    const size = Buffer.isBuffer(body) ? body.length : body.size;
    const own = track.layout.kind === 'blob' ? track.layout.digest : track.layout.manifestDigest;
    const commitment = options.segment ?? commitmentToHex(own.commitment);
    const signed = signUpload(
      {
        tape: track.tape.address.toBase58(),
        track: track.address.toBase58(),
        commitment,
        size,
        ...options.claim,
      },
      options.signer ?? track.tape.keypair,
      options.timestamp,
    );
    const headers: Record<string, string | undefined> = {
      'content-type': 'application/octet-stream',
      'content-length': String(size),
      ...signed,
      ...(options.segment ? { [UPLOAD_HEADERS.segment]: options.segment } : {}),
      ...options.headers,
    };
    return this.request(track.address.toBase58(), headers, body);
  }

  /** Closes sockets, including web3.js's WebSocket, which would otherwise retry forever. */
  close(): void {
    this.agent.destroy();
    this.chain.close();
  }

  private request(
    track: string,
    headers: Record<string, string | undefined>,
    body: PutBody,
  ): Promise<PutReply> {
    const clean = Object.fromEntries(
      Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
    );
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${this.gatewayUrl}/upload/${track}`,
        { method: 'PUT', headers: clean, agent: this.agent },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            let parsed: PutReply['body'] = {};
            try {
              parsed = JSON.parse(text) as PutReply['body'];
            } catch {
              parsed = { raw: text };
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (Buffer.isBuffer(body)) {
        req.end(body);
      } else if (body.size === 0) {
        req.end();
      } else {
        createReadStream(body.path, { start: body.start, end: body.start + body.size - 1 }).pipe(
          req,
        );
      }
    });
  }
}
