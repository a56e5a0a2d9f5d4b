import { Injectable } from '@nestjs/common';

export type HealthProbe = () => Promise<void>;

/** A snapshot that /healthz reports without gating readiness on it (metering counters). */
export type HealthDetail = () => unknown;

export interface HealthReport {
  ok: boolean;
  checks: Record<string, string>;
  details: Record<string, unknown>;
}

/**
 * Modules register what must answer before the gateway is ready (the chain, the track store),
 * and what an operator should see without it failing readiness (metering, which fails open).
 * A registry rather than imports keeps /healthz from depending on every feature module.
 */
@Injectable()
export class HealthRegistry {
  private readonly probes = new Map<string, HealthProbe>();
  private readonly details = new Map<string, HealthDetail>();

  register(name: string, probe: HealthProbe): void {
    this.probes.set(name, probe);
  }

  registerDetail(name: string, detail: HealthDetail): void {
    // Details sit beside `status` and `checks` in the /healthz body.
    if (name === 'status' || name === 'checks') throw new Error(`reserved health detail: ${name}`);
    this.details.set(name, detail);
  }

  /** The probes' results (each bounded by `timeoutMs`) and every detail's snapshot. */
  async check(timeoutMs = 2000): Promise<HealthReport> {
    const checks: Record<string, string> = {};
    await Promise.all(
      [...this.probes].map(async ([name, probe]) => {
        try {
          await withTimeout(probe(), timeoutMs);
          checks[name] = 'ok';
        } catch (err) {
          checks[name] = failureText(err);
        }
      }),
    );
    const details: Record<string, unknown> = {};
    for (const [name, detail] of this.details) {
      try {
        details[name] = detail();
      } catch (err) {
        details[name] = { error: failureText(err) };
      }
    }
    return { ok: Object.values(checks).every((v) => v === 'ok'), checks, details };
  }
}

function failureText(err: unknown): string {
  return (err instanceof Error && err.message) || 'failed';
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
