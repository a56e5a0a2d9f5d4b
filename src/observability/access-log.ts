import { Injectable, Logger } from '@nestjs/common';
import { GatewayConfig } from '../config/app-config';
import { redactSecrets } from '../logging/redact';
import type { ListenerName } from './gateway-metrics';
import type { RouteKind } from './route-kind';

export interface AccessLogEntry {
  listener: ListenerName;
  method: string;
  /** The request target, logged with its credentials redacted (src/logging/redact.ts). */
  url: string;
  /** The listener's request id, when it has one (S3's x-amz-request-id). */
  id?: string;
  kind: RouteKind;
  status: number;
  bytes: number;
  ms: number;
  /** The client as metering sees it (through the trusted proxies). */
  client: string;
}

/**
 * The one access-log writer of every listener: one JSON line per request through the app's
 * JsonLogger (whose redactor every line passes), `gateway.access_log` on/off and
 * `gateway.access_log_sample` (0..1) sampling. Credentials in the target's query (presigned
 * signatures, tokens, the credential scope) are redacted, as S3's own access logs do.
 */
@Injectable()
export class AccessLog {
  readonly enabled: boolean;
  private readonly sample: number;
  private readonly logger = new Logger('access');

  constructor(gateway: GatewayConfig) {
    this.sample = gateway.access_log_sample;
    this.enabled = gateway.access_log && this.sample > 0;
  }

  /** Whether this request is logged (sampling); false at once when the log is off. */
  sampled(): boolean {
    return this.enabled && (this.sample >= 1 || Math.random() < this.sample);
  }

  write(entry: AccessLogEntry): void {
    this.logger.log({
      event: 'request',
      ...(entry.id !== undefined && { id: entry.id }),
      listener: entry.listener,
      method: entry.method,
      url: redactSecrets(entry.url),
      kind: entry.kind,
      status: entry.status,
      bytes: entry.bytes,
      ms: Math.round(entry.ms * 1000) / 1000,
      client: entry.client,
    });
  }
}
