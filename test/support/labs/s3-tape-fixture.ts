import { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayOptions } from '../processes/gateway';
import { sdkClient } from '../clients/s3-sdk-client';
import { startTapeS3Lab, TapeS3Lab, tapeWithCredential, TapeWithCredential } from './s3-tape-lab';

export interface S3TapeFixtureOptions extends Omit<GatewayOptions, 'dataDir'> {
  /** Tapes made before the tests (funded owner, delegated, with a credential); 1 unless told. */
  tapes?: number;
  /** How each of those tapes is made (capacity, reservation, delegation). */
  tape?: Parameters<typeof tapeWithCredential>[1];
  /** The gateway keeps its data in a directory of the test's own (`lab.restart()` needs one). */
  ownDataDir?: boolean;
  /** The time the start (gateway and tapes) may take, if not the suite's test timeout. */
  startTimeout?: number;
}

/**
 * What an S3 tape suite works with, filled in by its `beforeAll`: the lab (gateway with the local
 * network embedded, its operator), the tapes made for the suite and an SDK client for each.
 */
export interface S3TapeFixture {
  lab: TapeS3Lab;
  /** The tapes made before the tests, in order. */
  tapes: TapeWithCredential[];
  /** The first of them. */
  site: TapeWithCredential;
  /** One SDK client per tape (its credential, the S3 URL at start), destroyed after the suite. */
  clients: S3Client[];
  /** The first tape's client. */
  s3: S3Client;
  /** The gateway's data directory. */
  dataDir: string;
  /** A scratch directory of the suite's own, removed after it. */
  work: string;
  /**
   * A new SDK client for a tape's credential (the first tape's unless told) at the gateway's
   * current S3 URL (it changes on `lab.restart()`), with another secret or SDK settings if told.
   */
  client(tape?: TapeWithCredential, secret?: string, extra?: S3ClientConfig): S3Client;
}

/**
 * Starts a tape S3 lab before the suite's tests and stops it after them (directories removed,
 * clients destroyed). Call at a suite's top level; read the fields inside hooks and tests.
 */
export function useS3TapeFixture(options: S3TapeFixtureOptions = {}): S3TapeFixture {
  const { tapes = 1, tape, ownDataDir, startTimeout, ...gateway } = options;
  const fixture = {
    client(t?: TapeWithCredential, secret?: string, extra?: S3ClientConfig) {
      const owner = t ?? fixture.site;
      return sdkClient(fixture.lab.gw.s3Url, owner.accessKeyId, secret ?? owner.secret, extra);
    },
  } as S3TapeFixture;
  let ownDir: string | undefined;

  beforeAll(async () => {
    fixture.work = mkdtempSync(join(tmpdir(), 'tape-s3-work-'));
    if (ownDataDir) ownDir = mkdtempSync(join(tmpdir(), 'tape-s3-data-'));
    fixture.lab = await startTapeS3Lab({ ...gateway, ...(ownDir ? { dataDir: ownDir } : {}) });
    fixture.dataDir = fixture.lab.gw.dataDir;
    fixture.tapes = await Promise.all(
      Array.from({ length: tapes }, () => tapeWithCredential(fixture.lab, tape)),
    );
    fixture.site = fixture.tapes[0];
    fixture.clients = fixture.tapes.map((t) => fixture.client(t));
    fixture.s3 = fixture.clients[0];
  }, startTimeout);

  afterAll(async () => {
    fixture.clients?.forEach((c) => c.destroy());
    await fixture.lab?.stop();
    for (const dir of [fixture.work, ownDir])
      if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return fixture;
}
