import { PassThrough } from 'node:stream';
import { CliError } from '../cli-error';
import { StdioPromptTerminal } from './prompt-terminal';
import { RemovalConfirmation } from './removal-confirmation';

/** A terminal of two in-memory streams; `tty` marks both as terminals or neither. */
function newTestConfirmation(tty: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const output = Object.assign(new PassThrough(), { isTTY: tty });
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString()));
  const sut = new RemovalConfirmation(new StdioPromptTerminal(input, output));
  return { sut, input, shown: () => written };
}

const request = {
  command: 'tape object rm',
  names: ['a.txt', 'b.txt'],
  tape: 'TAPE',
  yes: false,
};

describe('RemovalConfirmation', () => {
  it('lists the names and goes on when the person answers y', async () => {
    const { sut, input, shown } = newTestConfirmation(true);
    const asked = sut.confirm(request);
    input.write('y\n');
    await expect(asked).resolves.toBeUndefined();
    expect(shown()).toBe(
      'tape object rm will remove 2 names from tape TAPE:\n  a.txt\n  b.txt\nRemove them? [y/N] ',
    );
  });

  it.each(['yes', ' YES ', 'Y'])('takes %j as yes', async (answer) => {
    const { sut, input } = newTestConfirmation(true);
    const asked = sut.confirm(request);
    input.write(`${answer}\n`);
    await expect(asked).resolves.toBeUndefined();
  });

  it.each(['', 'n', 'no', 'yess'])('stops on %j (the default is no)', async (answer) => {
    const { sut, input } = newTestConfirmation(true);
    const asked = sut.confirm(request);
    input.write(`${answer}\n`);
    await expect(asked).rejects.toThrow(
      new CliError('cancelled: nothing was removed or published'),
    );
  });

  it('stops when the input ends without an answer', async () => {
    const { sut, input } = newTestConfirmation(true);
    const asked = sut.confirm(request);
    input.end();
    await expect(asked).rejects.toThrow(/^cancelled/);
  });

  it('refuses without a terminal, naming --yes and what would go', async () => {
    const { sut, shown } = newTestConfirmation(false);
    const names = ['a', 'b', 'c', 'd', 'e'];
    await expect(sut.confirm({ ...request, names })).rejects.toThrow(
      new CliError(
        'tape object rm would remove 5 names from tape TAPE (a, b, c, and 2 more) and there is no terminal to confirm it on: pass --yes to remove them; nothing was changed',
      ),
    );
    expect(shown()).toBe('');
  });

  it('asks nothing with --yes or when nothing goes', async () => {
    const { sut, shown } = newTestConfirmation(false);
    await expect(sut.confirm({ ...request, yes: true })).resolves.toBeUndefined();
    await expect(sut.confirm({ ...request, names: [] })).resolves.toBeUndefined();
    expect(shown()).toBe('');
  });

  it('is not interactive when only one of the streams is a terminal', () => {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    const output = Object.assign(new PassThrough(), { isTTY: false });
    expect(new StdioPromptTerminal(input, output).interactive()).toBe(false);
  });
});
