import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { Metered } from '../metering/metered.decorator';
import { VersionDownloadService } from './version-download.service';

/**
 * `GET /versions/{tape}/{root}`: a kept version's root and nodes (docs/versions.md, "Routes").
 * Served by writers and readers alike: it reads the chain and the track store only.
 */
@Controller('versions')
@Metered('object')
export class VersionDownloadController {
  constructor(private readonly versions: VersionDownloadService) {}

  @Get(':tape/:root')
  async download(
    @Param('tape') tape: string,
    @Param('root') root: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Readable> {
    const found = await this.versions.open(tape, root);
    // Immutable under its root; which version number it is can change (current, then previous).
    reply.header('content-type', 'application/octet-stream');
    reply.header('x-tape-version', String(found.version));
    reply.header('cache-control', 'no-cache');
    return found.body;
  }
}
