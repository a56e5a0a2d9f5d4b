import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VersionConflictError } from '../../../src/chain/chain-error';
import { ChainServices } from '../../../src/chain/chain.module';
import { GatewayClient } from '../../../src/cli/deploy/gateway-client';
import { UploadSigner } from '../../../src/cli/deploy/upload-signer';
import { readCurrentVersion } from '../../../src/cli/versions/current-version';
import { VersionPublisher } from '../../../src/cli/versions/version-publisher';
import { ChainConfig } from '../../../src/config/chain.config';
import { versionedTrackAddress } from '../../../src/object/versioned-track';
import { commitmentToHex } from '../../../src/tracks/commitment';
import {
  SegmentingHasher,
  TrackLayout,
  splitFileIntoTracks,
} from '../../../src/tracks/track-layout';
import { versionUploadMessage } from '../../../src/upload/version-request-auth';
import { buildVersion } from '../../../src/versions/version-builder';
import { compareNames, VersionEntry } from '../../../src/versions/version-entry';
import type { ChangedFile } from '../../../src/versions/version-planner';

/** Bytes of one PUT: in memory, or a slice of a file streamed from disk (big objects). */
export type PutBody = Buffer | { path: string; start: number; size: number };

export interface PutOptions {
  /** The commitment (hex) of the bytes sent when they are one segment of a streamed file. */
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

/** A file's tracks for a tape: what its upload needs, and its `/object` address. */
export interface WrittenTrack {
  /** base58(tape ‖ commitment): served by `/object/{address}` once a kept version holds it. */
  address: string;
  tape: TestTape;
  layout: TrackLayout;
  /** The file's own commitment (hex): its blob's, or its segment manifest's. */
  commitment: string;
}

/** Tries of a publish that loses its compare-and-swap to another publisher of the same tape. */
const PUBLISH_TRIES = 8;

/**
 * For tests and benchmarks only (the product uploader is src/cli/deploy): a writer that funds a
 * wallet from the local network's faucet, creates tapes, stages bytes with signed
 * `PUT /upload/{tape}/{commitment}` requests and publishes versions naming them (one file per
 * version, on top of the tape's current one) through `VersionPublisher`, as `tape deploy` does.
 */
export class UploadClient {
  readonly chain: ChainServices;
  readonly gateway: GatewayClient;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly spool = mkdtempSync(join(tmpdir(), 'upload-client-'));
  private spooled = 0;
  private storageAuthority?: PublicKey;

  constructor(
    readonly gatewayUrl: string,
    rpcUrl: string,
  ) {
    this.chain = new ChainServices(Object.assign(new ChainConfig(), { rpc_url: rpcUrl }));
    this.gateway = new GatewayClient(gatewayUrl);
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

  /** How many of its newest versions the tape keeps (SetKeep: the tape's sequence moves by 1). */
  async setKeep(wallet: Keypair, tape: TestTape, keep: number): Promise<void> {
    const record = await this.chain.reader.getTape(tape.address);
    await this.chain.writer.send(
      [
        this.chain.ix.setKeep({
          signer: tape.keypair.publicKey,
          tape: tape.address,
          expectedSequence: record!.sequence,
          keep,
        }),
      ],
      [wallet, tape.keypair],
    );
  }

  /** The tracks of these bytes (a blob, or segments and a manifest past `segmentBytes`). */
  static layoutOf(bytes: Buffer, segmentBytes: number): TrackLayout {
    return new SegmentingHasher(segmentBytes).update(bytes).digest();
  }

  /** A file's tracks on a tape: nothing is sent. */
  track(tape: TestTape, layout: TrackLayout): WrittenTrack {
    const own = layout.kind === 'blob' ? layout.digest : layout.manifestDigest;
    return {
      address: versionedTrackAddress(tape.address, own.commitment),
      tape,
      layout,
      commitment: commitmentToHex(own.commitment),
    };
  }

  /**
   * Publishes a version of the tape with these bytes under `name` (default `files/<commitment>`)
   * on top of its current version: the gateway gets every track it lacks, certifies, co-signs.
   */
  async store(
    wallet: Keypair,
    tape: TestTape,
    source: Buffer | string,
    contentType: string,
    segmentBytes: number,
    name?: string,
    /** The compiled rules the version's root claims (default: the base's), to test refusals. */
    rules?: Buffer,
  ): Promise<WrittenTrack> {
    const path = typeof source === 'string' ? source : this.spoolFile(source);
    const layout = await splitFileIntoTracks(path, segmentBytes);
    const track = this.track(tape, layout);
    await this.publish(wallet, track, name ?? `files/${track.commitment}`, contentType, {
      path,
      segmentBytes,
      rules,
    });
    return track;
  }

  /** Stages every track of the file (segments, then the manifest): no version names them yet. */
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

  /** One signed `PUT /upload/{tape}/{commitment}`; resolves with the status and JSON body. */
  put(track: WrittenTrack, body: PutBody, options: PutOptions = {}): Promise<PutReply> {
    const size = Buffer.isBuffer(body) ? body.length : body.size;
    const commitment = options.segment ?? track.commitment;
    const tape = track.tape.address.toBase58();
    const signer = new UploadSigner(options.signer ?? track.tape.keypair);
    const signed = signer.signed(
      (timestamp) => versionUploadMessage({ tape, commitment, size, timestamp, ...options.claim }),
      options.timestamp,
    );
    const headers: Record<string, string | undefined> = {
      'content-type': 'application/octet-stream',
      'content-length': String(size),
      ...signed,
      ...options.headers,
    };
    return this.request(`${tape}/${commitment}`, headers, body);
  }

  /** Closes sockets, including web3.js's WebSocket, which would otherwise retry forever. */
  close(): void {
    this.agent.destroy();
    this.gateway.close();
    this.chain.close();
    rmSync(this.spool, { recursive: true, force: true });
  }

  private async publish(
    wallet: Keypair,
    track: WrittenTrack,
    name: string,
    contentType: string,
    from: { path: string; segmentBytes: number; rules?: Buffer },
  ): Promise<void> {
    const { layout } = track;
    const file: ChangedFile = {
      name,
      commitment: Buffer.from(track.commitment, 'hex'),
      size: layout.size,
      contentType,
      layout:
        layout.kind === 'blob'
          ? { kind: 'blob' }
          : { kind: 'stream', manifestBytes: layout.manifestBytes.length },
    };
    const publisher = new VersionPublisher(this.gateway, this.chain.rpc, this.chain.ix, {
      concurrency: 4,
      segmentBytes: from.segmentBytes,
      storageAuthority: await this.authority(),
    });
    for (let attempt = 1; ; attempt++) {
      const base = await readCurrentVersion(this.chain.reader, this.gateway, track.tape.address);
      const entry: VersionEntry = {
        name,
        commitment: file.commitment,
        size: file.size,
        contentType,
        metadata: Buffer.alloc(0),
        location: file.layout,
      };
      const entries = [...base.entries.filter((e) => e.name !== name), entry].sort((a, b) =>
        compareNames(a.name, b.name),
      );
      const plan = {
        entries,
        settings: base.settings,
        rules: from.rules ?? base.rules,
        packs: [],
        tracks: [file],
        added: [name],
        changed: [],
        removed: [],
      };
      try {
        await publisher.publish({
          tape: track.tape.address,
          tapeSigner: track.tape.keypair,
          wallet,
          plan,
          built: buildVersion(entries, base.settings, from.rules ?? base.rules),
          expectedSequence: base.record.sequence,
          pathOf: () => from.path,
        });
        return;
      } catch (err) {
        if (!(err instanceof VersionConflictError) || attempt >= PUBLISH_TRIES) throw err;
      }
    }
  }

  private async authority(): Promise<PublicKey> {
    if (!this.storageAuthority) {
      this.storageAuthority = new PublicKey((await this.gateway.uploadConfig()).storageAuthority);
    }
    return this.storageAuthority;
  }

  private spoolFile(bytes: Buffer): string {
    const path = join(this.spool, `file-${this.spooled++}`);
    writeFileSync(path, bytes);
    return path;
  }

  private request(
    target: string,
    headers: Record<string, string | undefined>,
    body: PutBody,
  ): Promise<PutReply> {
    const clean = Object.fromEntries(
      Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
    );
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${this.gatewayUrl}/upload/${target}`,
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
