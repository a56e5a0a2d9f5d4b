import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { IntRange, OptionalRedisUrl } from './config-decorators';

/**
 * `storage.gc.*`: the track store's garbage collector (docs/tracks.md, "Garbage collection").
 * Bytes are deleted once no live track references them.
 */
export class TrackGcConfig {
  @IsBoolean()
  enabled = true;

  /**
   * Time between the end of one pass and the start of the next. Short because a pass costs
   * little when nothing changed: the tapes it checks whole are the ones that changed here, and
   * the cursor's page is read from the local index; a dropped version's bytes go within one
   * interval of the Publish that dropped it (docs/versions.md, "Garbage collection").
   */
  @IntRange(100, 24 * 60 * 60 * 1000)
  interval_ms = 5 * 1000;

  /** Stored blobs examined per pass (their references read with getMultipleAccounts). */
  @IntRange(1, 100_000)
  max_tracks_per_pass = 1000;

  /** A tape's bytes are kept this long after it expired (time to extend it). */
  @IntRange(0)
  expired_grace_secs = 7 * 24 * 60 * 60;

  /**
   * Bytes staged on a tape's current version (an upload in progress) and a version certified
   * but not published yet are kept this long after they were last recorded. A dropped version
   * and bytes staged on a version the tape has moved past are not: the pointer decides at once.
   * A reference under no version or staging owner (a per-file track recorded by a gateway
   * before program 1.2.0) is dropped once it is older than this.
   */
  @IntRange(0)
  pending_grace_secs = 60 * 60;

  /**
   * Bytes staged on a version the tape has moved past, which no later version of the tape took
   * in, are kept this long after they were last recorded: the writer lost its compare-and-swap
   * and is re-planning on the new version (an S3 commit group, a deploy racing S3 writes). They
   * count against the tape's bound on disk all the while.
   */
  @IntRange(0)
  rebase_grace_secs = 120;
}

/** `storage.uploads.*`: concurrent `PUT /upload/{tape}/{commitment}` requests (docs/uploads.md). */
export class UploadLimitsConfig {
  /**
   * Uploads in progress at once from one client (the metering client key). An upload holds its
   * slot until its bytes are verified and staged, so this is what a deploy's throughput rests
   * on: the `tape` CLI sends 128 at once (`deploy --concurrency`).
   */
  @IntRange(1)
  max_per_client = 128;

  /** Uploads in progress at once into one tape, whoever sends them (two full-speed clients). */
  @IntRange(1)
  max_per_tape = 256;
}

/**
 * `storage.tracks.s3.*`: the S3-compatible bucket holding track bytes when
 * `storage.tracks.store` is `s3` (docs/tracks.md, "S3 backend"). A reader may hold read-only
 * credentials; with no access key, requests go unsigned (a public-read bucket).
 */
export class TrackS3Config {
  /** e.g. `http://127.0.0.1:7480`; required with store = s3. */
  @IsOptional()
  @IsString()
  endpoint?: string;

  @IsString()
  region = 'us-east-1';

  @IsString()
  bucket = 'tape-tracks';

  /** Key prefix inside the bucket (one bucket may hold several networks). */
  @IsString()
  prefix = 'tracks/';

  @IsOptional()
  @IsString()
  access_key_id?: string;

  @IsOptional()
  @IsString()
  secret_access_key?: string;

  /** Path-style URLs (`endpoint/bucket/key`): Ceph RGW, MinIO and most self-hosted stores. */
  @IsBoolean()
  path_style = true;

  /** One request's longest wait (connect and each response) before the store counts as down. */
  @IntRange(100, 10 * 60 * 1000)
  request_timeout_ms = 10_000;

  /**
   * Tracks larger than this are sent as a multipart upload of parts this size (S3's minimum
   * part is 5 MiB); smaller ones with one PutObject.
   */
  @IntRange(5 * 1024 * 1024, 1024 * 1024 * 1024)
  multipart_part_bytes = 16 * 1024 * 1024;

  /** Creates the bucket at start-up when missing (writer only; readers never write). */
  @IsBoolean()
  create_bucket = false;
}

/** `storage.tracks.cache.*`: the verified local read-through cache in front of a remote store. */
export class TrackCacheConfig {
  /** Bytes of verified tracks kept on local disk (LRU, under `<data_dir>/track-cache`). 0: none. */
  @IntRange(0)
  max_bytes = 4 * 1024 * 1024 * 1024;

  /**
   * Hash every chunk read back from the cache again (on by default since issue 33): a byte
   * changed on the cache disk is caught before it is served, the copy dropped and the bytes read
   * again from the store (docs/tracks.md, "Why the cache is checked again"). Off: cached files
   * are trusted, at ~1 GB/s of SHA-256 per core saved on reads of objects above 1 MiB. A reader
   * with peers always hashes.
   */
  @IsBoolean()
  verify_reads = true;
}

/** An http(s) base URL with no credentials, query or fragment (a peer gateway). */
export function isPeerUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === ''
  );
}

/**
 * `storage.tracks.peer.*`: how a reader asks its peer gateways for track bytes
 * (`storage.tracks.peers`, docs/peers.md). Peers are trusted for nothing: every byte is verified
 * against the chain; these bound what a slow or hostile peer can cost.
 */
export class TrackPeerConfig {
  /** Longest silence of one peer request (connecting, its answer's headers, its body). */
  @IntRange(100, 5 * 60 * 1000)
  request_timeout_ms = 5000;

  /** A peer that failed is asked last for this long (it is still the last resort). */
  @IntRange(0, 24 * 60 * 60 * 1000)
  retry_after_ms = 30_000;
}

/** `storage.tracks.*`: which backend holds track bytes (the issue's `gateway.tracks.*`). */
export class TracksStoreConfig {
  /** `file`: `<data_dir>/tracks` on this machine; `s3`: a shared bucket (`storage.tracks.s3`). */
  @IsIn(['file', 's3'])
  store: 'file' | 's3' = 'file';

  @ValidateNested()
  @Type(() => TrackS3Config)
  s3 = new TrackS3Config();

  @ValidateNested()
  @Type(() => TrackCacheConfig)
  cache = new TrackCacheConfig();

  /**
   * Peer gateways (base URLs, asked in this order) to fetch track bytes from instead of a store:
   * a reader with no store access. Every byte is verified against the chain (docs/peers.md).
   */
  @IsArray()
  @ArrayMaxSize(16)
  @ArrayUnique()
  @ValidateBy(
    {
      name: 'isPeerUrl',
      validator: {
        validate: isPeerUrl,
        defaultMessage: () => 'each peer must be an http(s) URL without credentials or query',
      },
    },
    { each: true },
  )
  peers: string[] = [];

  @ValidateNested()
  @Type(() => TrackPeerConfig)
  peer = new TrackPeerConfig();
}

/**
 * `storage.shared.*`: the Redis that replicas share their state through (docs/operator.md,
 * "Scaling out"): S3 credentials, multipart uploads and the spool budget, the track reference
 * index and the garbage collector's lease. Unset: that state stays in `data_dir` (SQLite and
 * spool files), right for a single gateway.
 */
export class SharedStateConfig {
  @OptionalRedisUrl()
  redis_url?: string;

  /** Prefix of every key, so several networks (or metering) can share one Redis. */
  @IsString()
  key_prefix = 'tape:shared:';

  /** Longest wait for one command; past it the request that needed it fails (503). */
  @IntRange(10, 60_000)
  command_timeout_ms = 2000;

  /**
   * How long the garbage collector's lease lasts without renewal: a replica that dies holding
   * it delays the next pass by at most this long. Renewed every third of it while a pass runs.
   */
  @IntRange(1000, 60 * 60 * 1000)
  gc_lease_ms = 60_000;
}

/** `storage.*`: where track bytes live. */
export class StorageConfig {
  @IsString()
  data_dir = './.tape-data';

  /** Objects larger than this are stored as segment tracks plus a manifest. */
  @IntRange(64 * 1024, 1024 * 1024 * 1024)
  segment_bytes = 8 * 1024 * 1024;

  @ValidateNested()
  @Type(() => TrackGcConfig)
  gc = new TrackGcConfig();

  @ValidateNested()
  @Type(() => UploadLimitsConfig)
  uploads = new UploadLimitsConfig();

  @ValidateNested()
  @Type(() => TracksStoreConfig)
  tracks = new TracksStoreConfig();

  @ValidateNested()
  @Type(() => SharedStateConfig)
  shared = new SharedStateConfig();
}
