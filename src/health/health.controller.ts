import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { HealthRegistry } from './health-registry';

@Controller()
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  /**
   * Ready only when every registered dependency answers; details (metering) are reported but
   * never fail readiness. Never metered, never cached.
   */
  @Get('healthz')
  async health(@Res() reply: FastifyReply): Promise<void> {
    const result = await this.registry.check();
    await reply
      .code(result.ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        status: result.ok ? 'ok' : 'unavailable',
        checks: result.checks,
        ...result.details,
      });
  }
}
