import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version `tape --version` prints: the one in the package.json of the package this code
 * runs from (the clone's, or the installed npm package's), found by walking up from here, so
 * dist/ and ts-node agree and there is no second copy of the number to keep in step.
 */
export function cliVersion(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'tape-gateway' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here (or not ours): keep walking up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
