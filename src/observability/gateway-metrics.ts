import { Injectable, Optional } from '@nestjs/common';
import { Registry } from 'prom-client';
import { HealthRegistry } from '../health/health-registry';
import { registerHealthChecks } from './health-metrics';
import { HttpStats } from './http-stats';
import { enableDefaultMetrics, processRegistry } from './process-metrics';
import type { RouteKind } from './route-kind';

export type ListenerName = 'main' | 's3' | 'admin' | 'rpc';

/**
 * The gateway app's metrics, in its own registry (tests run several apps in one process);
 * `/metrics` serves it merged with the process registry. Labels are bounded: listener, route
 * kind, status class, budget, outcome — never a tape, host or client address.
 *
 * Rooms register their own collectors in `registry` (as they register health checks), each
 * read when scraped from counts the room keeps anyway (`registerTrackStoreMetrics` in
 * src/tracks, `registerMeteringMetrics` in src/metering, …): this room imports none of them.
 */
@Injectable()
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly http = new HttpStats();

  constructor(@Optional() health?: HealthRegistry) {
    enableDefaultMetrics();
    this.http.register(this.registry);
    if (health) registerHealthChecks([this.registry], () => health.check());
  }

  /** One answered request. */
  observe(
    listener: ListenerName,
    kind: RouteKind,
    status: number,
    seconds: number,
    bytes: number,
  ): void {
    this.http.observe(listener, kind, status, seconds, bytes);
  }

  /** The Prometheus text of this app and of the process. */
  async text(): Promise<string> {
    return Registry.merge([processRegistry, this.registry]).metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
