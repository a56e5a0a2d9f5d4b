import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { MeteringGate } from '../../metering/metering-gate';
import { S3MeterDecision, S3RequestKind, S3RequestMeter } from '../s3-request-meter';

/**
 * S3 requests counted by the gateway's metering: writes against the `s3_write` budget, reads
 * (listings, HEAD, GET) against `object`, the budget of the other route that hands out object
 * bytes. Over budget, the listener answers the gate's 503 SlowDown with Retry-After.
 */
@Injectable()
export class MeteringS3RequestMeter extends S3RequestMeter {
  constructor(private readonly gate: MeteringGate) {
    super();
  }

  async consume(request: IncomingMessage, kind: S3RequestKind): Promise<S3MeterDecision> {
    // The gate follows gateway.metering.trusted_proxies, like the HTTP routes' guard.
    const decision = await this.gate.checkAsync(request, kind === 'write' ? 's3_write' : 'object');
    return decision.allowed
      ? { allowed: true }
      : { allowed: false, slowDown: this.gate.slowDown(decision) };
  }
}
