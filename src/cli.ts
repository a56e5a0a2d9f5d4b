// First: every module loaded after it compiles through the code cache.
import './startup/cached-start';
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli/cli.module';
import { describeError } from './cli/output/error-line';
import { InterruptNotice } from './cli/session/interrupt-notice';
import { keepRunningOnUnhandledRejections } from './logging/unhandled-rejections';

/**
 * The `tape` command (bin/tape.js). Every failure ends as one line on stderr and a non-zero
 * exit: nest-commander's default service error handler would print and exit 0.
 */
/**
 * The CLI prints through its Printer (process.stdout/stderr). Libraries that write to the
 * console on their own (web3.js logs every failed WebSocket subscription, with a stack) would
 * break the one-line error contract, so the console is quiet unless TAPE_DEBUG is set.
 */
function quietConsole(): void {
  if (process.env.TAPE_DEBUG) return;
  const quiet = () => undefined;
  console.log = console.info = console.warn = console.error = console.debug = quiet;
}

async function main(): Promise<void> {
  quietConsole();
  // A library's dropped promise (web3.js's status check) must not end a deploy half way.
  keepRunningOnUnhandledRejections((reason) => {
    if (process.env.TAPE_DEBUG) process.stderr.write(`warning: unhandled rejection: ${reason}\n`);
  });
  const app = await CommandFactory.createWithoutRunning(CliModule, {
    cliName: 'tape',
    logger: false,
    serviceErrorHandler: (err: Error) => {
      process.stderr.write(`error: ${describeError(err)}\n`);
      process.exitCode = 1;
    },
    // Commander's own errors (unknown option, missing argument) are already printed by it;
    // help and version exit 0.
    errorHandler: (err: Error & { exitCode?: number }) => {
      process.exit(err.exitCode ?? 1);
    },
  });
  exitOnInterrupt(app.get(InterruptNotice));
  try {
    await CommandFactory.runApplication(app);
  } finally {
    await app.close();
  }
}

/**
 * Ctrl-C ends any command with 130 (128 + SIGINT, as a shell reports it), after the line the
 * running command gave for it (what is left as it was, how to go on) and whatever it printed
 * has reached the terminal.
 */
function exitOnInterrupt(notice: InterruptNotice): void {
  process.once('SIGINT', () => {
    const note = notice.current;
    if (note) process.stderr.write(`\n${note}\n`);
    exitAfterFlush(130);
  });
}

main().then(
  // web3.js keeps a WebSocket open after confirming; the command is done, so leave now.
  () => exitAfterFlush(),
  (err: unknown) => {
    process.stderr.write(`error: ${describeError(err)}\n`);
    process.exitCode = 1;
    exitAfterFlush();
  },
);

/** `code`, else process.exitCode (Node 20's `process.exit(undefined)` would exit 0). */
function exitAfterFlush(code?: number): void {
  const exit = () => (code === undefined ? process.exit() : process.exit(code));
  process.stdout.write('', () => process.stderr.write('', exit));
}
