/**
 * The gateway's own short pages on site routes, for answers that have no site content: no such
 * site, nothing at this path (when the site has no 404.html), expired, refused path, and the
 * gateway's own failures. Plain HTML with no script, no external resource and no user input
 * echoed back, served under a CSP that allows nothing but their inline style.
 */

export interface BuiltInPage {
  status: number;
  body: Buffer;
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}';

function page(status: number, title: string, text: string): BuiltInPage {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${title}</title><style>${STYLE}</style></head>` +
    `<body><h1>${title}</h1><p>${text}</p></body></html>\n`;
  return { status, body: Buffer.from(html, 'utf8') };
}

export const PAGES = {
  notFound: page(404, '404 Not Found', 'There is nothing at this address.'),
  noSite: page(404, '404 Not Found', 'No site is served at this address.'),
  emptySite: page(
    404,
    '404 Not Found',
    'This site has published no version yet: its tape holds no files. ' +
      'Its owner publishes one with <code>tape deploy</code>.',
  ),
  versionNotKept: page(
    404,
    '404 Not Found',
    'version_not_kept: this tape does not keep the version this address names ' +
      "(it was never published, or it left the tape's history), or has no such alias.",
  ),
  expired: page(
    410,
    '410 Gone',
    'This site is no longer served: the storage reservation of its tape has ended. ' +
      'Its owner can reserve more time with <code>tape extend</code> before a tape expires.',
  ),
  badPath: page(400, '400 Bad Request', 'This path cannot name a file of a site.'),
  badVersion: page(
    400,
    '400 Bad Request',
    'This address names no version: a version is a number (<code>@3</code>, ' +
      '<code>v3--</code>) or an alias of lower-case letters, digits and inner hyphens.',
  ),
  badHost: page(400, '400 Bad Request', 'This host name cannot name a site.'),
  methodNotAllowed: page(405, '405 Method Not Allowed', 'Sites are read with GET and HEAD.'),
  unavailable: page(
    503,
    '503 Service Unavailable',
    'This site cannot be looked up right now. Try again shortly.',
  ),
  storeUnavailable: page(
    503,
    '503 Service Unavailable',
    'The content of this page cannot be fetched right now. Try again shortly.',
  ),
  internalError: page(500, '500 Internal Server Error', 'Something went wrong on our side.'),
  badContent: page(502, '502 Bad Gateway', 'The content of this page could not be verified.'),
} as const satisfies Record<string, BuiltInPage>;

export const PAGE_CONTENT_TYPE = 'text/html; charset=utf-8';
