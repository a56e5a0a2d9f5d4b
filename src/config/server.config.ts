import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsIP,
  IsNumber,
  IsString,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { IntRange } from './config-decorators';
import { TlsAskConfig } from './tls-ask.config';

/**
 * `gateway.admin.*`: the operator listener (Prometheus `/metrics`, `/livez`, the TLS `ask`
 * endpoint). Loopback by default: it is never the public port.
 */
export class AdminConfig {
  @IsString()
  host = '127.0.0.1';

  /** `TAPE_ADMIN_PORT`; 0 turns the admin listener off. */
  @IntRange(0, 65535)
  port = 9464;

  @ValidateNested()
  @Type(() => TlsAskConfig)
  tls_ask = new TlsAskConfig();
}

/** `gateway.*` listener settings. */
export class ServerConfig {
  @IsString()
  host = '127.0.0.1';

  @IntRange(0, 65535)
  port = 8080;

  /**
   * Milliseconds SIGTERM gives the gateway to exit: the listeners drain (requests in flight
   * finish) for all but min(2000, half) of it, the modules close in the rest, and past it the
   * process exits 1 (docs/operator.md, "Health, logs, shutdown").
   */
  @IntRange(0)
  shutdown_grace_ms = 10000;

  /**
   * One log line per request on every listener (main, S3, admin). On by default when
   * NODE_ENV=production, off otherwise (it costs throughput).
   */
  @IsBoolean()
  access_log = process.env.NODE_ENV === 'production';

  /** Fraction of requests the access log writes (0..1); 1 = every request. */
  @IsNumber()
  @Min(0)
  @Max(1)
  access_log_sample = 1;

  @ValidateNested()
  @Type(() => AdminConfig)
  admin = new AdminConfig();

  @IsString()
  log_level = 'info';

  /**
   * `TAPE_LOG_FORMAT`, `--log-format`: `json` (one object per line), `pretty` (one readable
   * line per record) or `auto`: pretty when stdout is a terminal, JSON otherwise
   * (src/logging/log-format.ts).
   */
  @IsIn(['auto', 'pretty', 'json'])
  log_format: 'auto' | 'pretty' | 'json' = 'auto';

  /**
   * Listener timeouts, applied to the gateway's HTTP listener and the S3 listener alike. A request
   * body that sends nothing for `body_idle_timeout_ms` is cut off (its connection closed, its
   * temporary files removed) however young the request is; a slow but steady upload is never
   * idle, and only `request_timeout_ms` bounds it as a whole.
   */
  @IntRange(1000)
  body_idle_timeout_ms = 30_000;

  /** Longest time to receive a whole request (head and body); 0 = no limit. */
  @IntRange(0)
  request_timeout_ms = 60 * 60 * 1000;

  /** Longest time to receive a request's head (request line and headers). */
  @IntRange(1000)
  headers_timeout_ms = 30_000;

  /** An idle kept-alive connection between requests is closed after this long. */
  @IntRange(1000)
  keep_alive_timeout_ms = 65_000;

  /**
   * Open connections one client address (an IPv6 /64) may hold on each listener (main, S3,
   * admin); past it a new connection is closed as soon as it is accepted. Trusted proxies
   * (`gateway.metering.trusted_proxies`) are not capped. 0 turns the cap off.
   */
  @IntRange(0)
  max_connections_per_address = 128;

  /**
   * Client addresses the connection cap never applies to: loopback by default (the CLI on the
   * gateway's host deploys at a concurrency of 128, several at once in CI; a local process can
   * exhaust the gateway by other means anyway). Set [] to cap loopback too.
   */
  @IsArray()
  @IsIP(undefined, { each: true })
  connection_cap_exempt_ips: string[] = ['127.0.0.1', '::1'];
}
