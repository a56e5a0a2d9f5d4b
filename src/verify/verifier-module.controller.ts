import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../http/api-error';
import { Metered } from '../metering/metered.decorator';

/** Where `npm run build` puts the browser build of src/verify/core (tsconfig.verify-module.json). */
export const VERIFIER_MODULE_FILE = join(__dirname, '..', 'verify-module', 'tape-verifier.js');

/**
 * `GET /_tape/verify.js`: the verifier core as one dependency-free ES module, so a page on any
 * origin can check an answer against the chain (docs/verify.md, "In a browser").
 */
@Controller('_tape')
@Metered('object')
export class VerifierModuleController {
  private module: { body: Buffer; etag: string } | null | undefined;

  @Get('verify.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'public, max-age=300')
  @Header('access-control-allow-origin', '*')
  @Header('x-content-type-options', 'nosniff')
  serve(@Res({ passthrough: true }) reply: FastifyReply): Buffer {
    const found = this.load();
    if (!found)
      throw new ApiError(503, 'not_built', 'the verifier module is not built (npm run build)');
    reply.header('etag', found.etag);
    return found.body;
  }

  private load(): { body: Buffer; etag: string } | null {
    if (this.module === undefined) {
      try {
        const body = readFileSync(VERIFIER_MODULE_FILE);
        this.module = { body, etag: `"${createHash('sha256').update(body).digest('hex')}"` };
      } catch {
        this.module = null;
      }
    }
    return this.module;
  }
}
