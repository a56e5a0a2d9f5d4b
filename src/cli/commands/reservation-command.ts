import { Injectable } from '@nestjs/common';
import { TapeReservations } from '../reservation/tape-reservations';
import { CommandContext } from '../session/command-context';
import { TapeCommand } from './tape-command';

/** `tape create`, `extend` and `resize`: they parse, ask TapeReservations, and print. */
@Injectable()
export abstract class ReservationCommand extends TapeCommand {
  constructor(
    ctx: CommandContext,
    protected readonly reservations: TapeReservations,
  ) {
    super(ctx);
  }
}
