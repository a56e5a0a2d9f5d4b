import { headersFor } from '../versions/rules/rules-match';
import { SiteRules } from '../versions/rules/site-rules';
import { contentSecurityPolicy, SitePolicy } from './site-policy';

/** Policies per set of matching `_headers` rules, at most, per snapshot (then built per request). */
const MEMO_LIMIT = 1024;

/**
 * The policy one path of a site is answered under: the snapshot's, plus what the site's
 * `_headers` rules matching the path add (docs/site.md, "Rules"): sources merged into the
 * gateway's Content-Security-Policy (the sandbox of path routes stays a policy of its own
 * beside it), its own `Cache-Control`, and the other headers the fence lets through. Paths
 * matching the same rules share one policy object, so their prepared headers are memoised once.
 */
export function policyForPath(
  policy: SitePolicy,
  rules: SiteRules,
  path: string,
  memo: Map<string, SitePolicy>,
): SitePolicy {
  const matched = headersFor(rules, path);
  if (matched.key === '') return policy;
  const known = memo.get(matched.key);
  if (known !== undefined) return known;
  const { connectAny, connectOrigins, pathSandbox } = policy.csp;
  const csp = contentSecurityPolicy(connectAny, connectOrigins, matched.csp);
  const { 'cache-control': cacheControl, ...extra } = matched.set;
  const derived: SitePolicy = {
    ...policy,
    contentSecurityPolicy: csp,
    sharedOriginContentSecurityPolicy: `${csp}, ${pathSandbox}`,
    cacheControl: cacheControl ?? policy.cacheControl,
    extraHeaders: Object.keys(extra).length === 0 ? undefined : extra,
  };
  if (memo.size >= MEMO_LIMIT) return derived;
  const kept: SitePolicy = { ...derived, memoised: true };
  memo.set(matched.key, kept);
  return kept;
}
