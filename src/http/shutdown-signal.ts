import { Injectable, Module } from '@nestjs/common';

/**
 * The one signal that the gateway's shutdown has begun, given by its shutdown entry
 * (`closeGatewayApp`, src/gateway-app.ts) before `app.close()`. Nest's close runs every module's
 * `onModuleDestroy` (meter stores, Redis, credentials, the chain connection) before the
 * listeners close, so each listener answers new requests 503 itself from this moment on: the
 * main listener (src/http/main-listener.ts) and the S3 listener (src/s3/s3-server.ts). A listener
 * keeps the signal in a field of its own when told, so its per-request test stays one boolean.
 */
@Injectable()
export class ShutdownSignal {
  private begun = false;
  private readonly listeners: Array<() => void> = [];

  get hasBegun(): boolean {
    return this.begun;
  }

  /** Tells every listener, once; later calls change nothing. */
  begin(): void {
    if (this.begun) return;
    this.begun = true;
    for (const listener of this.listeners.splice(0)) listener();
  }

  /** Calls `listener` when shutdown begins (at once when it has begun already). */
  onBegin(listener: () => void): void {
    if (this.begun) listener();
    else this.listeners.push(listener);
  }
}

/** One ShutdownSignal for the whole application: every listener's module imports this. */
@Module({ providers: [ShutdownSignal], exports: [ShutdownSignal] })
export class ShutdownSignalModule {}
