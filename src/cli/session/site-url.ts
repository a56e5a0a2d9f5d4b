import { CliError } from '../cli-error';
import { printable } from '../input/size-parser';

/** `example.com`, `sites.example.com:8443`, `localhost:8080`: a host name with an optional port. */
const DOMAIN =
  /^(?=.{1,253}(?::|$))([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::\d{1,5})?$/;

export function parseSiteDomain(text: string): string {
  const value = text.trim().toLowerCase().replace(/\.$/, '');
  const port = /:(\d+)$/.exec(value)?.[1];
  if (!DOMAIN.test(value) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
    throw new CliError(
      `bad site domain '${printable(text)}': expected a host name with an optional port, e.g. example.com or localhost:8080`,
    );
  }
  return value;
}

/**
 * The URL a deployed site opens at. Browsers resolve `*.localhost` to loopback without DNS, and
 * the local gateway speaks plain HTTP, so localhost domains get `http://`; every other domain
 * is a public gateway behind TLS.
 */
export function siteUrl(label: string, siteDomain: string): string {
  const host = siteDomain.replace(/:\d+$/, '');
  const local = host === 'localhost' || host.endsWith('.localhost');
  return `${local ? 'http' : 'https'}://${label}.${siteDomain}/`;
}

/** Where a deployed site answers (docs/cli.md, "Site URLs"). */
export interface SiteUrls {
  /** The one to open: the host URL when there is one, else the path URL. */
  url: string;
  /** `<scheme>://<label>.<domain>/`, or null when no site domain is known for this gateway. */
  hostUrl: string | null;
  /** `<gateway>/site/<tape>/`: the gateway the CLI talks to, scheme, host and port as given. */
  pathUrl: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A deployed site's URLs. The path URL is the gateway's own (`TAPE_GATEWAY`), port included.
 * The host URL is under the site domain when one is configured (`TAPE_SITE_DOMAIN`,
 * `site_domain`); without one, a gateway on loopback serves `<label>.localhost` on its own port
 * (its default `subdomain_suffix` is `localhost`, matched without the port, and browsers send
 * `*.localhost` to loopback); any other gateway has no host URL the CLI can know.
 */
export function siteUrls(
  label: string,
  tape: string,
  gatewayUrl: string,
  configuredDomain: string | undefined,
): SiteUrls {
  const gateway = new URL(gatewayUrl);
  const base = `${gateway.protocol}//${gateway.host}${gateway.pathname.replace(/\/+$/, '')}`;
  const pathUrl = `${base}/site/${tape}/`;
  let hostUrl: string | null = null;
  if (label.length > 63) {
    // Not one DNS label (a long alias's `<alias>--<label>`): the path URL is the only one.
  } else if (configuredDomain !== undefined) {
    hostUrl = siteUrl(label, configuredDomain);
  } else if (LOOPBACK_HOSTS.has(gateway.hostname)) {
    const port = gateway.port === '' ? '' : `:${gateway.port}`;
    hostUrl = `${gateway.protocol}//${label}.localhost${port}/`;
  }
  return { url: hostUrl ?? pathUrl, hostUrl, pathUrl };
}
