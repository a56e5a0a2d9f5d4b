import { CliError } from '../cli-error';
import { ScannedSite, SiteFile } from './site-scanner';

/**
 * The files a deploy publishes: the scanned site's visible files, plus those of its
 * `.well-known/` whose exact name the gateway allows (`well_known_allow` of
 * `GET /upload/config`, the operator's `gateway.site.well_known_allow`); every other
 * `.well-known/` file stays unpublished. An allowed name that is a symlink or special file
 * fails the deploy, as a visible one would.
 */
export function publishedFiles(site: ScannedSite, allowed: readonly string[]): SiteFile[] {
  if (allowed.length === 0 || site.wellKnown.length === 0) return site.files;
  const allow = new Set(allowed);
  const chosen: SiteFile[] = [];
  for (const candidate of site.wellKnown) {
    if (!allow.has(candidate.name)) continue;
    if ('problem' in candidate) throw new CliError(`${candidate.problem}; nothing was uploaded`);
    chosen.push(candidate);
  }
  if (chosen.length === 0) return site.files;
  return [...site.files, ...chosen].sort((a, b) =>
    Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)),
  );
}
