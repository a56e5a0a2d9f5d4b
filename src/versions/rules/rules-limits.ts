/**
 * Limits of a site's rules files (docs/site.md, "Rules: `_redirects` and `_headers`"). The file
 * size is the IPFS web-redirects-file limit (64 KiB); the rule counts are those of Cloudflare
 * Pages (2,000 redirects, 100 header rules), the value length its 2,000 characters per line.
 */
export const REDIRECTS_FILE = '_redirects';
export const HEADERS_FILE = '_headers';
export const MAX_RULES_FILE_BYTES = 64 * 1024;
export const MAX_REDIRECT_RULES = 2000;
export const MAX_HEADER_RULES = 100;
export const MAX_HEADERS_PER_RULE = 32;
export const MAX_HEADER_VALUE_BYTES = 2000;
/** The compiled rules a version root carries, at most (two full files compile to less). */
export const MAX_COMPILED_RULES_BYTES = 192 * 1024;
