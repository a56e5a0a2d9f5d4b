import { isLogFormatSetting, LOG_FORMAT_SETTINGS, LogFormatSetting } from './logging/log-format';

/** `node dist/main.js --help`. */
export const GATEWAY_USAGE = `usage: node --no-memory-reducer dist/main.js [--log-format pretty|json|auto]

  --log-format  pretty: one readable line per record; json: one JSON object per line;
                auto (default): pretty on a terminal, JSON otherwise.
                Also TAPE_LOG_FORMAT or gateway.log_format; the flag wins.

Everything else is configured by TAPE_GATEWAY_CONFIG and environment variables
(docs/operator.md, "Configuration").
`;

export interface GatewayArgs {
  help: boolean;
  logFormat?: LogFormatSetting;
}

/** Thrown for a command line the gateway does not understand; the message says what is wrong. */
export class GatewayArgsError extends Error {}

/** The gateway's command line (after `node` and the script): only `--log-format` and `--help`. */
export function parseGatewayArgs(argv: readonly string[]): GatewayArgs {
  const args: GatewayArgs = { help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      args.help = true;
    } else if (arg === '--log-format' || arg.startsWith('--log-format=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (value === undefined || !isLogFormatSetting(value)) {
        throw new GatewayArgsError(
          `--log-format: expected one of ${LOG_FORMAT_SETTINGS.join(', ')}, got ${value === undefined ? 'nothing' : `'${value}'`}`,
        );
      }
      args.logFormat = value;
    } else {
      throw new GatewayArgsError(`unknown argument '${arg}' (--help lists the options)`);
    }
  }
  return args;
}
