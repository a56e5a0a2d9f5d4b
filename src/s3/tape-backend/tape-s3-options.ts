import { Logger } from '@nestjs/common';
import { ObservabilityModule } from '../../observability/observability.module';
import { ChainModule } from '../../chain/chain.module';
import { KeyBalanceModule } from '../../chain/key-balance/key-balance.module';
import { GatewayConfig } from '../../config/app-config';
import { S3Config } from '../../config/s3.config';
import { StorageConfig } from '../../config/storage.config';
import { CredentialsModule } from '../../credentials/credentials.module';
import { MeteringModule } from '../../metering/metering.module';
import { SharedState } from '../../shared-state/shared-state';
import { SharedStateModule } from '../../shared-state/shared-state.module';
import { trackS3Client } from '../../tracks/s3/track-s3-client';
import { TracksModule } from '../../tracks/tracks.module';
import { S3Backend } from '../s3-backend';
import { S3CredentialStore } from '../s3-credential-store';
import { S3RequestMeter } from '../s3-request-meter';
import type { S3ModuleOptions } from '../s3.module';
import { GatewayS3CredentialStore } from './gateway-s3-credential-store';
import { GroupPublish } from './group-publish';
import { MeteringS3RequestMeter } from './metering-s3-request-meter';
import { ChainEndedTapes, EndedTapes } from './ended-tapes';
import { MultipartSpool } from './multipart-spool';
import { MultipartSweeper } from './multipart-sweeper';
import { MultipartStore } from './multipart-store';
import { ObjectCommitter } from './object-committer';
import { ObjectSpool } from './object-spool';
import { SharedMultipartStore } from './shared-multipart-store';
import { SharedSpoolLedger } from './shared-spool-ledger';
import { SpoolBudget, tapeSpoolLimit } from './spool-budget';
import { LocalSpoolLedger, SpoolLedger } from './spool-ledger';
import { TapeDirectory } from './tape-directory';
import { TapeMultipartUploads } from './tape-multipart-uploads';
import { TapeObjectReads } from './tape-object-reads';
import { TapeObjectWrites } from './tape-object-writes';
import { TapeS3Backend } from './tape-s3-backend';
import { TapeVersions } from './tape-versions';
import { VersionCommitGroups } from './version-commit-groups';
import { VersionPublishingWiring } from './version-publishing';
import { VersionsModule } from '../../versions/versions.module';

/**
 * Multipart uploads and the spool budget are shared by replicas when they share a Redis
 * (`storage.shared.redis_url`) and a track bucket (`storage.tracks.store: s3`): records and
 * budget in Redis, part bytes in the bucket. Otherwise both stay on this gateway's disk.
 */
function sharesMultipart(storage: StorageConfig, shared: SharedState): boolean {
  return shared.redis !== undefined && storage.tracks.store === 's3';
}

/**
 * The S3 endpoint's ports over tapes, for `S3Module.forRoot(tapeS3Options())` in the gateway:
 * the chain services and GatewayIdentity come from ChainModule, the credential registry from
 * CredentialsModule, the config classes from the global ConfigModule; `publishing` wires the
 * VersionPublishing port (the upload room's Publish, which this room may not import).
 */
export function tapeS3Options(publishing: VersionPublishingWiring): S3ModuleOptions {
  return {
    imports: [
      TracksModule,
      MeteringModule,
      SharedStateModule,
      ChainModule,
      ObservabilityModule,
      KeyBalanceModule,
      CredentialsModule.forRoot(),
      VersionsModule,
      // The group commit publishes with the gateway's own keys (the root wires the port).
      ...publishing.imports,
    ],
    providers: [
      TapeDirectory,
      SpoolBudget,
      ObjectSpool,
      TapeVersions,
      // Writers need no lock between them: each group publishes with compare-and-swap.
      VersionCommitGroups,
      GroupPublish,
      publishing.provider,
      {
        provide: SpoolLedger,
        inject: [StorageConfig, S3Config, GatewayConfig, SharedState, SpoolBudget],
        useFactory: (
          storage: StorageConfig,
          s3: S3Config,
          gateway: GatewayConfig,
          shared: SharedState,
          budget: SpoolBudget,
        ): SpoolLedger => {
          if (!sharesMultipart(storage, shared)) return new LocalSpoolLedger(budget);
          const logger = new Logger('s3-spool');
          return new SharedSpoolLedger(
            shared.redis!,
            shared.prefix,
            s3.max_spool_bytes,
            tapeSpoolLimit(s3),
            gateway.request_timeout_ms,
            (err) => logger.warn({ msg: 'spool hold not released', error: err.message }),
          );
        },
      },
      {
        provide: MultipartStore,
        inject: [StorageConfig, S3Config, SharedState, SpoolBudget, SpoolLedger],
        useFactory: (
          storage: StorageConfig,
          s3: S3Config,
          shared: SharedState,
          budget: SpoolBudget,
          ledger: SpoolLedger,
        ): MultipartStore => {
          if (!sharesMultipart(storage, shared)) return new MultipartSpool(storage, budget, s3);
          const tracks = storage.tracks.s3;
          return new SharedMultipartStore({
            redis: shared.redis!,
            prefix: shared.prefix,
            client: trackS3Client(tracks),
            bucket: tracks.bucket,
            objectPrefix: `${tracks.prefix}multipart/`,
            ledger: ledger as SharedSpoolLedger,
            expiryMs: s3.upload_expiry_hours * 60 * 60 * 1000,
            idleMs: s3.upload_idle_hours * 60 * 60 * 1000,
            completedKept: s3.completed_uploads_kept,
          });
        },
      },
      { provide: EndedTapes, useClass: ChainEndedTapes },
      MultipartSweeper,
      ObjectCommitter,
      TapeObjectReads,
      TapeObjectWrites,
      TapeMultipartUploads,
      { provide: S3Backend, useClass: TapeS3Backend },
      { provide: S3CredentialStore, useClass: GatewayS3CredentialStore },
      { provide: S3RequestMeter, useClass: MeteringS3RequestMeter },
    ],
  };
}
