import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthRegistry } from './health-registry';

@Controller()
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  /**
   * Ready (200) only when every registered dependency answers; `degraded` (still 200: sites are
   * served) when a warning holds, such as a key too poor for the next hour of writes; details
   * (metering) are reported but never fail readiness. `reasons` lists what is not ok, one line
   * each. Never metered, never cached.
   */
  @Get('healthz')
  async health(@Res() reply: FastifyReply): Promise<void> {
    const result = await this.registry.check();
    await reply
      .code(result.ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        status: !result.ok ? 'unavailable' : result.degraded ? 'degraded' : 'ok',
        checks: result.checks,
        reasons: Object.entries(result.checks)
          .filter(([, text]) => text !== 'ok')
          .map(([name, text]) => `${name}: ${text}`),
        ...result.details,
      });
  }
}
