import { parseOriginList } from '../config/origin';
import { SiteDirectoryOptions } from './site-directory-options';

/** The directory options of the directory specs: gateway defaults, a clock the test moves. */
export function testDirectoryOptions(
  clock: { ms: number },
  warnings: string[],
): SiteDirectoryOptions {
  return {
    defaults: {
      spaFallback: false,
      maxAgeSecs: 60,
      corsOrigins: parseOriginList(['https://gateway-reader.example'], false),
      connectOrigins: parseOriginList(['https://api.example'], false),
      pathSandbox: 'sandbox allow-scripts',
    },
    tenantOverrides: true,
    allowAnyOrigin: false,
    nameCacheSecs: 60,
    now: () => clock.ms,
    warn: (m) => warnings.push(m),
  };
}
