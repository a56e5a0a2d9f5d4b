import { SubCommand } from 'nest-commander';
import { transactionFee } from '../../chain/priority-fee';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { GlobalOptions } from '../session/tape-session';
import { assertWalletCanPay } from './payment-check';
import { TapeCommand } from './tape-command';

@SubCommand({
  name: 'rm',
  arguments: '<name>',
  argsDescription: { name: 'object name, e.g. docs/index.html' },
  description: 'delete one object name (its track is released when no name uses it)',
})
export class ObjectRmCommand extends TapeCommand {
  async run([name]: string[], options: GlobalOptions = {}): Promise<void> {
    const session = this.session(options);
    const tape = await session.loadTape();
    const { reader, writer, ix } = session.chain;
    const [record] = await reader.getNames(tape.address, [name]);
    if (!record) {
      throw new CliError(`no object named '${printable(name)}' on tape ${tape.address.toBase58()}`);
    }
    const signer = session.tapeSigner(tape);
    const payer = session.wallet();
    const signers = signer.publicKey.equals(payer.publicKey) ? [payer] : [payer, signer];
    const remove = ix.removeName({
      receiver: payer.publicKey,
      signer: signer.publicKey,
      tape: tape.address,
      name,
      track: record.track,
    });
    await assertWalletCanPay(
      reader,
      payer.publicKey,
      0n,
      transactionFee([remove], signers.length, writer.packing),
      'removing the object',
    );
    await session.guarded(writer.send([remove], signers));
    if (session.json) {
      this.printer.json({ removed: name, tape: tape.address.toBase58() });
      return;
    }
    this.printer.line(`removed ${name}`);
  }
}
