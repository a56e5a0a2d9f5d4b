import fastify from 'fastify';
import type { MeteringService } from '../../../src/metering/metering.service';

export interface S3LikeListener {
  port: number;
  close(): Promise<void>;
}

/**
 * What the S3 listener will do: a Fastify instance of its own, outside Nest's router, asking
 * MeteringService directly and answering S3's `503 SlowDown` when a client is over budget.
 */
export async function startS3LikeListener(
  metering: MeteringService,
  host: string,
): Promise<S3LikeListener> {
  const server = fastify();
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', (_req, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null));
  });
  server.put('/:bucket/*', async (request, reply) => {
    const decision = await metering.consume(metering.clientKeyOf(request), 's3_write');
    if (!decision.allowed) {
      return reply
        .code(503)
        .header('retry-after', String(decision.retryAfterSecs))
        .header('content-type', 'application/xml')
        .send(
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>' +
            '<Message>Please reduce your request rate.</Message></Error>',
        );
    }
    return reply.code(200).header('etag', '"0"').send();
  });
  await server.listen({ port: 0, host });
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () => server.close(),
  };
}
