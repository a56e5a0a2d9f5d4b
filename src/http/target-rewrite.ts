import type { FastifyInstance } from 'fastify';
import { codeForStatus, errorBody } from './error-body';
import { sendErrorBody } from './error-reply';
import { originForm, TargetRequest } from './request-target';

/**
 * The main listener's request targets for Fastify's router (RFC 9112 §3.2): an absolute-form
 * target whose authority is the Host becomes origin-form (src/http/request-target.ts); a
 * target that cannot be made origin-form is moved to `REFUSED_TARGET_ROUTE` and answered 400
 * there with the stable error body. (Site requests never reach Fastify: the main listener,
 * src/http/main-listener.ts, hands them to the site edge before, after the same normalisation.)
 */

/** Where a refused request target is routed (and answered 400); the reason is on the request. */
export const REFUSED_TARGET_ROUTE = '/_refused-target';
export const REFUSED_TARGET = Symbol('tape.refusedTarget');

export type RewritableRequest = TargetRequest & {
  [REFUSED_TARGET]?: string;
};

export function rewriteTarget(req: RewritableRequest): string {
  const url = originForm(req);
  if (typeof url === 'string') return url;
  req[REFUSED_TARGET] = url.refused;
  return REFUSED_TARGET_ROUTE;
}

/**
 * The route a refused request target is moved to: 400 with the reason in the stable error body.
 * Typed without the rewrite's mark, it is no route at all (404).
 */
export function registerRefusedTargetRoute(fastify: FastifyInstance): void {
  fastify.all(REFUSED_TARGET_ROUTE, (request, reply) => {
    const reason = (request.raw as RewritableRequest)[REFUSED_TARGET];
    if (reason === undefined) {
      return sendErrorBody(reply, 404, errorBody(codeForStatus(404), 'no such route'));
    }
    sendErrorBody(reply, 400, errorBody(codeForStatus(400), reason));
  });
}
