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
}
