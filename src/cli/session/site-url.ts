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
