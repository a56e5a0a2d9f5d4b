import { IsBoolean, IsInt, IsString, Max, Min } from 'class-validator';

/** `gateway.*` listener settings. */
export class ServerConfig {
  @IsString()
  host = '127.0.0.1';

  @IsInt()
  @Min(0)
  @Max(65535)
  port = 8080;

  /** Milliseconds to let in-flight requests finish on SIGTERM. */
  @IsInt()
  @Min(0)
  shutdown_grace_ms = 10000;

  /** Log one line per request (off by default: it costs throughput). */
  @IsBoolean()
  access_log = false;

  @IsString()
  log_level = 'info';

  /**
   * Listener timeouts, applied to the gateway's HTTP listener and the S3 listener alike. A request
   * body that sends nothing for `body_idle_timeout_ms` is cut off (its connection closed, its
   * temporary files removed) however young the request is; a slow but steady upload is never
   * idle, and only `request_timeout_ms` bounds it as a whole.
   */
  @IsInt()
  @Min(1000)
  body_idle_timeout_ms = 30_000;

  /** Longest time to receive a whole request (head and body); 0 = no limit. */
  @IsInt()
  @Min(0)
  request_timeout_ms = 60 * 60 * 1000;

  /** Longest time to receive a request's head (request line and headers). */
  @IsInt()
  @Min(1000)
  headers_timeout_ms = 30_000;

  /** An idle kept-alive connection between requests is closed after this long. */
  @IsInt()
  @Min(1000)
  keep_alive_timeout_ms = 65_000;
}
