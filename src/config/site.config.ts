import { IsBoolean, IsInt, IsObject, IsOptional, IsString, Max, Min } from 'class-validator';

/** `gateway.site.*`: how sites are mapped to hostnames and which headers they get. */
export class SiteConfig {
  /** Exact hostname -> tape address, served from the domain root. */
  @IsObject()
  domains: Record<string, string> = {};

  /** `<label>.<suffix>` serves the tape whose label it is. Empty disables subdomains. */
  @IsString()
  subdomain_suffix = 'localhost:8080';

  /** Serve any host whose `_tape.<host>` TXT record (DNSSEC-validated) names a tape. */
  @IsBoolean()
  txt_domains = false;

  /** Validating resolvers (`ip` or `ip:port`) for TXT bindings; empty = the system's. */
  @IsString({ each: true })
  dns_resolvers: string[] = [];

  @IsBoolean()
  spa_fallback = false;

  /** When false, `_site.json` is ignored entirely. */
  @IsBoolean()
  tenant_overrides = true;

  @IsString({ each: true })
  cors_origins: string[] = [];

  @IsString({ each: true })
  connect_origins: string[] = [];

  @IsInt()
  @Min(0)
  @Max(31536000)
  max_age_secs = 60;

  /** Bytes of verified object content kept in the in-memory LRU. */
  @IsInt()
  @Min(0)
  cache_bytes = 256 * 1024 * 1024;

  @IsOptional()
  @IsString()
  public_url?: string;
}
