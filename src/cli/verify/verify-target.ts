import { addressFromLabel } from '../../chain/tape-label';
import {
  parseHostSelector,
  parsePathSelector,
  VersionSelector,
} from '../../domains/version-selector';
import { objectAddressParts } from '../../verify/core/tape-verifier';
import { CliError } from '../cli-error';

/**
 * What `tape verify` was asked to check, from its argument (docs/cli.md, "tape verify"):
 * - `<gateway>/site/{tape}/{path}`: a path route; `/site/{tape}@<n>/…` and `/site/{tape}@<alias>/…`
 *   a pinned version or an alias;
 * - `<scheme>://<label>.<suffix>/{path}`: a hostname route (the label is base32 of the tape;
 *   proofs are asked of `<scheme>://<suffix>`, or of `--gateway`); `v<n>--<label>` and
 *   `<alias>--<label>` a pinned version or an alias;
 * - `<gateway>/object/{track}`: an object by address;
 * - `/{path}`: a path of the active tape (`--tape`), through the configured gateway.
 */
export type VerifyTarget =
  | {
      kind: 'site';
      tape: string;
      /** Where the site's pages are fetched: `<origin>/site/{tape}` or the site's own origin. */
      siteBase: string;
      path: string;
      /** Where proofs and version manifests are asked for. */
      gateway: string;
      /** A pinned version or an alias instead of the current version. */
      selector?: VersionSelector;
    }
  | {
      kind: 'object';
      tape: string;
      commitment: string;
      url: string;
      track: string;
      gateway: string;
    };

export function parseVerifyTarget(
  text: string,
  fallback: { gateway: string; tape?: () => string; gatewayOption?: string },
): VerifyTarget {
  if (text.startsWith('/')) {
    if (!fallback.tape) throw new CliError('a site path needs a tape (--tape)');
    const tape = fallback.tape();
    const gateway = trim(fallback.gatewayOption ?? fallback.gateway);
    return { kind: 'site', tape, siteBase: `${gateway}/site/${tape}`, path: text, gateway };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${text} is not a URL (http://…) or a site path (/…)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`${text}: only http and https URLs can be verified`);
  const path = url.pathname;
  const own = trim(fallback.gatewayOption ?? url.origin);
  const site = /^\/site\/([1-9A-HJ-NP-Za-km-z]{32,44})(?:@([^/]*))?(\/.*)?$/.exec(path);
  if (site) {
    const selector =
      site[2] === undefined ? undefined : selectorOf(parsePathSelector(site[2]), text);
    return {
      kind: 'site',
      tape: site[1],
      siteBase: `${url.origin}/site/${site[1]}${site[2] === undefined ? '' : `@${site[2]}`}`,
      path: site[3] ?? '/',
      gateway: own,
      ...(selector && { selector }),
    };
  }
  const object = /^\/object\/([1-9A-HJ-NP-Za-km-z]+)$/.exec(path);
  if (object) {
    const parts = objectAddressParts(object[1]);
    if (!parts)
      throw new CliError(`${object[1]} is not an object address (base58 of tape || commitment)`);
    return {
      kind: 'object',
      ...parts,
      url: `${url.origin}${path}`,
      track: object[1],
      gateway: own,
    };
  }
  const [first, ...rest] = url.hostname.split('.');
  const dashes = first.lastIndexOf('--');
  const label = dashes < 0 ? first : first.slice(dashes + 2);
  const selector =
    dashes < 0 ? undefined : selectorOf(parseHostSelector(first.slice(0, dashes)), text);
  const tape = addressFromLabel(label);
  if (tape === null || rest.length === 0) {
    throw new CliError(
      `${text}: not a /site/{tape}/…, /object/{track} or <label>.<domain> URL (a custom domain: use /site/{tape}/… or a site path with --tape)`,
    );
  }
  const port = url.port ? `:${url.port}` : '';
  return {
    kind: 'site',
    tape,
    siteBase: url.origin,
    path,
    gateway: trim(fallback.gatewayOption ?? `${url.protocol}//${rest.join('.')}${port}`),
    ...(selector && { selector }),
  };
}

function selectorOf(parsed: ReturnType<typeof parsePathSelector>, text: string): VersionSelector {
  if (parsed.kind === 'bad')
    throw new CliError(`${text}: the version selector is ${parsed.reason}`);
  return parsed;
}

/** `@3` or `@pr-12` after the tape in a path (empty for the current version). */
export function selectorSuffix(selector: VersionSelector | undefined): string {
  if (selector === undefined) return '';
  return selector.kind === 'pinned' ? `@${selector.version}` : `@${selector.name}`;
}

function trim(base: string): string {
  return base.replace(/\/+$/, '');
}
