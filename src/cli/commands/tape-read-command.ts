import { Injectable } from '@nestjs/common';
import { CommandContext } from '../session/command-context';
import { TapeReads } from '../versions/tape-reads';
import { TapeCommand } from './tape-command';

/** `tape info` and `tape object ls`: they read the target's tape through TapeReads, and print. */
@Injectable()
export abstract class TapeReadCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    protected readonly reads: TapeReads,
  ) {
    super(ctx);
  }
}
