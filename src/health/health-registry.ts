import { Injectable } from '@nestjs/common';

export type HealthProbe = () => Promise<void>;

/**
 * Modules register what must answer before the gateway is ready (the chain, the track store).
 * A registry rather than imports keeps /healthz from depending on every feature module.
 */
@Injectable()
export class HealthRegistry {
  private readonly probes = new Map<string, HealthProbe>();

  register(name: string, probe: HealthProbe): void {
    this.probes.set(name, probe);
  }

  async check(timeoutMs = 2000): Promise<{ ok: boolean; checks: Record<string, string> }> {
    const checks: Record<string, string> = {};
    await Promise.all(
      [...this.probes].map(async ([name, probe]) => {
        try {
          await withTimeout(probe(), timeoutMs);
          checks[name] = 'ok';
        } catch (err) {
          checks[name] = (err as Error).message || 'failed';
        }
      }),
    );
    return { ok: Object.values(checks).every((v) => v === 'ok'), checks };
  }
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
