import { PublicKey } from '@solana/web3.js';
import { Command, Option } from 'nest-commander';
import { transactionFee } from '../../chain/priority-fee';
import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';
import { keyValueLines } from '../output/key-value-lines';
import { GlobalOptions } from '../session/tape-session';
import { assertWalletCanPay } from '../funding/payment-check';
import { TapeCommand } from './tape-command';

interface DelegateOptions extends GlobalOptions {
  revoke?: boolean;
}

@Command({
  name: 'delegate',
  arguments: '[gateway_public_key]',
  argsDescription: {
    gateway_public_key: "the gateway's key (base58) that may then write to the tape",
  },
  description: 'let a gateway write to the tape (for bucket sync), or --revoke it',
})
export class DelegateCommand extends TapeCommand {
  @Option({ flags: '--revoke', description: 'remove the delegate' })
  parseRevoke(): boolean {
    return true;
  }

  async run([key]: string[], options: DelegateOptions = {}): Promise<void> {
    if (options.revoke && key !== undefined) {
      throw new CliError('delegate: give a gateway public key or --revoke, not both');
    }
    if (!options.revoke && key === undefined) {
      throw new CliError('delegate: a gateway public key is required (or --revoke)');
    }
    const delegate = options.revoke ? null : parseKey(key);
    const session = this.session(options);
    const tape = await session.loadTape();
    // Only the tape's own keypair may choose its delegate (a delegate cannot appoint another).
    const authority = session.tapeSigner(tape, true);
    const payer = session.wallet();
    const { reader, writer, ix } = session.chain;
    const setDelegate = ix.setDelegate({ authority: authority.publicKey, delegate });
    const signers = authority.publicKey.equals(payer.publicKey) ? [payer] : [payer, authority];
    await assertWalletCanPay(
      reader,
      payer.publicKey,
      0n,
      transactionFee([setDelegate], signers.length, writer.packing),
      'changing the delegate',
    );
    await session.guarded(writer.send([setDelegate], signers));
    const value = delegate?.toBase58() ?? null;
    if (session.json) {
      this.printer.json({ tape: tape.address.toBase58(), delegate: value });
      return;
    }
    this.printer.lines(
      keyValueLines([
        ['tape address', tape.address.toBase58()],
        ['delegate', value ?? 'none'],
      ]),
    );
  }
}

function parseKey(text: string): PublicKey {
  const trimmed = text.trim();
  if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(trimmed)) {
    try {
      const key = new PublicKey(trimmed);
      if (key.toBase58() === trimmed) return key;
    } catch {
      // falls through to the error below
    }
  }
  throw new CliError(`bad gateway public key '${printable(text)}': expected a base58 public key`);
}
