import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { S3SlowDown } from '../metering/metering-gate';

export type S3RequestKind = 'read' | 'write';

/** Allowed, or refused with what the listener answers: the metering gate's `SlowDown`. */
export type S3MeterDecision = { allowed: true } | { allowed: false; slowDown: S3SlowDown };

/**
 * Port: per-client request budget of the S3 listener. Called once per request, before any
 * signature work, with the request (the meter finds the client behind trusted proxies from its
 * socket and forwarding headers) and whether it reads or writes.
 */
export abstract class S3RequestMeter {
  abstract consume(request: IncomingMessage, kind: S3RequestKind): Promise<S3MeterDecision>;
}

/** The default until metering provides its own: every request is allowed. */
@Injectable()
export class UnmeteredS3RequestMeter extends S3RequestMeter {
  async consume(): Promise<S3MeterDecision> {
    return { allowed: true };
  }
}
