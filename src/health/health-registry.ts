import { Injectable } from '@nestjs/common';

export type HealthProbe = () => Promise<void>;

/**
 * Something that degrades the gateway without making it unready (a key too poor to pay for the
 * next hour of writes): resolves to the reason, or null when all is well.
 */
export type HealthWarning = () => Promise<string | null>;

/** A snapshot that /healthz reports without gating readiness on it (metering counters). */
export type HealthDetail = () => unknown;

export interface HealthReport {
  ok: boolean;
  /** Ready, but a warning holds: `degraded`. */
  degraded: boolean;
  /** Every probe's and warning's result: `ok`, or what is wrong. */
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
  private readonly warnings = new Map<string, HealthWarning>();
  private readonly details = new Map<string, HealthDetail>();

  register(name: string, probe: HealthProbe): void {
    this.probes.set(name, probe);
  }

  registerWarning(name: string, warning: HealthWarning): void {
    this.warnings.set(name, warning);
  }

  registerDetail(name: string, detail: HealthDetail): void {
    // Details sit beside `status`, `checks` and `reasons` in the /healthz body.
    if (RESERVED.has(name)) throw new Error(`reserved health detail: ${name}`);
    this.details.set(name, detail);
  }

  /** The probes' and warnings' results (each bounded by `timeoutMs`), every detail's snapshot. */
  async check(timeoutMs = 2000): Promise<HealthReport> {
    const checks: Record<string, string> = {};
    // Reported in registration order, probes first, whichever answers first.
    for (const name of [...this.probes.keys(), ...this.warnings.keys()]) checks[name] = '';
    let degraded = false;
    await Promise.all([
      ...[...this.probes].map(async ([name, probe]) => {
        try {
          await withTimeout(probe(), timeoutMs);
          checks[name] = 'ok';
        } catch (err) {
          checks[name] = failureText(err);
        }
      }),
      ...[...this.warnings].map(async ([name, warning]) => {
        // A warning that cannot be evaluated degrades nothing: the probe of what it reads fails.
        const reason = await withTimeout(warning(), timeoutMs).catch(() => null);
        checks[name] = reason ?? 'ok';
        if (reason !== null) degraded = true;
      }),
    ]);
    const ok = [...this.probes.keys()].every((name) => checks[name] === 'ok');
    const details: Record<string, unknown> = {};
    for (const [name, detail] of this.details) {
      try {
        details[name] = detail();
      } catch (err) {
        details[name] = { error: failureText(err) };
      }
    }
    return { ok, degraded: ok && degraded, checks, details };
  }
}

const RESERVED = new Set(['status', 'checks', 'reasons']);

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
