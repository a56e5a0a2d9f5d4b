import { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from '@jest/globals';
import { sdkClient } from '../clients/s3-sdk-client';
import { S3TestApp, startS3TestApp } from './s3-test-app';

/** A tape on the in-process S3 listener, its bucket label and a credential scoped to it. */
export interface S3AppOwner {
  tape: string;
  bucket: string;
  accessKeyId: string;
  secret: string;
}

export const APP_OWNER: S3AppOwner = {
  tape: 'TapeOfTheOwner111111111111111111111111111',
  bucket: 'ownerbucketlabel2222222222222222222222222222222222aa',
  accessKeyId: 'AKOWNER',
  secret: 'owner-secret',
};

export interface S3AppFixture {
  app: S3TestApp;
  /** An SDK client at the listener, with the owner's credential unless told otherwise. */
  client(accessKeyId?: string, secret?: string, extra?: S3ClientConfig): S3Client;
}

/**
 * Starts the S3 listener over in-memory fakes (test/support/apps/s3-test-app) with the owner's tape
 * and credential before the suite's tests, and closes it after them. Call at a suite's top
 * level; read `app` inside hooks and tests.
 */
export function useS3TestApp(owner: S3AppOwner = APP_OWNER): S3AppFixture {
  const fixture = {
    client: (accessKeyId = owner.accessKeyId, secret = owner.secret, extra: S3ClientConfig = {}) =>
      sdkClient(fixture.app.url, accessKeyId, secret, extra),
  } as S3AppFixture;
  beforeAll(async () => {
    fixture.app = await startS3TestApp();
    fixture.app.backend.addTape(owner.bucket, owner.tape);
    fixture.app.credentials.issue(owner.accessKeyId, owner.secret, owner.tape);
  });
  afterAll(async () => {
    await fixture.app?.close();
  });
  return fixture;
}
