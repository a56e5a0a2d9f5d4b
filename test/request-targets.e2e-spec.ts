import { connect } from 'node:net';
import { versionedTrackAddress } from '../src/object/versioned-track';
import { startSiteGateway, SiteGateway } from './support/processes/site-gateway';
import { siteGet } from './support/clients/site-http';
import { publishSite, PublishedSite } from './support/labs/site-publish';

/**
 * Request targets written by hand on raw sockets (Node's HTTP client would rewrite them) against
 * the real gateway process, on both listeners: a site host never reaches `/object`, `/healthz`,
 * `/upload` or `/site` by any target form (absolute, asterisk, authority, `//`, `%2F`), and hidden
 * paths (`.env`, `.well-known/…`) answer the gateway's built-in 404, never a page of the tape.
 */
jest.setTimeout(300_000);

const SECRET = 'secret bytes only /object/{track} may serve';
const TENANT_404 = '<h1>tenant 404 page</h1>';
const HEALTH_MARKER = '"checks"';

interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** The connection closed without any answer. */
  closed: boolean;
}

/** Writes `request` as is (CRLF line ends added), reads until the server closes. */
function raw(baseUrl: string, lines: string[]): Promise<RawAnswer> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname);
    let data = '';
    socket.setEncoding('latin1');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'));
    socket.on('data', (d: string) => (data += d));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' ? resolve(parse('')) : reject(err),
    );
    socket.on('close', () => resolve(parse(data)));
  });
  function parse(data: string): RawAnswer {
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
    const split = data.indexOf('\r\n\r\n');
    return {
      status: match ? Number(match[1]) : 0,
      head: split < 0 ? data : data.slice(0, split),
      body: split < 0 ? '' : data.slice(split + 4),
      closed: data === '',
    };
  }
}

describe('request targets and hidden paths (gateway process, both listeners)', () => {
  let gw: SiteGateway;
  let site: PublishedSite;
  let host: string;
  let track: string;

  beforeAll(async () => {
    gw = await startSiteGateway();
    site = await publishSite(gw, {
      'index.html': '<h1>home</h1>',
      '404.html': TENANT_404,
      'secret.txt': SECRET,
    });
    host = `${site.label}.localhost:${gw.port}`;
    const secret = await siteGet(gw.url, `/site/${site.tape}/secret.txt`);
    const commitment = Buffer.from(String(secret.headers.etag).replace(/"/g, ''), 'hex');
    track = versionedTrackAddress(site.tape, commitment);
  });

  afterAll(async () => {
    site?.remove();
    expect(await gw?.stop()).toBe(0);
  });

  const get = (target: string, hostHeader: string | null = host, version = 'HTTP/1.1') =>
    raw(gw.url, [
      `GET ${target} ${version}`,
      ...(hostHeader === null ? [] : [`Host: ${hostHeader}`]),
      'Connection: close',
    ]);

  /** No gateway route answered: not the object's bytes, not health, not upload settings. */
  const expectNoGatewayRoute = (res: RawAnswer, target: string) => {
    expect([target, res.body]).not.toEqual([target, expect.stringContaining(SECRET)]);
    expect([target, res.body]).not.toEqual([target, expect.stringContaining(HEALTH_MARKER)]);
    expect([target, res.body]).not.toEqual([target, expect.stringContaining('max_bytes')]);
  };

  it('the controls: the gateway host serves the object and health, also in absolute-form', async () => {
    expect((await get(`/object/${track}`, `127.0.0.1:${gw.port}`)).body).toContain(SECRET);
    const absolute = await get(`http://127.0.0.1:${gw.port}/healthz`, `127.0.0.1:${gw.port}`);
    expect(absolute.status).toBe(200);
    expect(absolute.body).toContain(HEALTH_MARKER);
    expect((await get('/missing')).body).toContain(TENANT_404);
  });

  it('an absolute-form target on a site host is a path of the site', async () => {
    for (const path of [
      `/object/${track}`,
      '/healthz',
      '/upload/config',
      `/site/${site.tape}/secret.txt`,
    ]) {
      const res = await get(`http://${host}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).toContain(TENANT_404);
      expectNoGatewayRoute(res, path);
      // HTTP/1.0 without Host: the authority is the host.
      const old = await get(`http://${host}${path}`, null, 'HTTP/1.0');
      expect([path, old.status]).toEqual([path, 404]);
      expectNoGatewayRoute(old, path);
    }
    expect((await get(`HTTP://${host.toUpperCase()}/`)).body).toContain('<h1>home</h1>');
  });

  it('refuses an absolute-form authority other than the Host with 400', async () => {
    for (const target of [
      'http://x/healthz',
      `http://127.0.0.1:${gw.port}/healthz`,
      `http://localhost:${gw.port}/object/${track}`,
      `https://127.0.0.1:${gw.port}/site/${site.tape}/secret.txt`,
    ]) {
      const res = await get(target);
      expect([target, res.status]).toEqual([target, 400]);
      expect(res.body).toContain('"bad_request"');
      expectNoGatewayRoute(res, target);
    }
  });

  it('refuses asterisk-form and authority-form; CONNECT gets no answer', async () => {
    const options = await raw(gw.url, [`OPTIONS * HTTP/1.1`, `Host: ${host}`, 'Connection: close']);
    expect(options.status).toBe(400);
    const authority = await get(`${host}`);
    expect(authority.status).toBe(400);
    const tunnel = await raw(gw.url, [`CONNECT 127.0.0.1:${gw.port} HTTP/1.1`, `Host: ${host}`]);
    expect(tunnel.status).not.toBe(200);
    expectNoGatewayRoute(tunnel, 'CONNECT');
  });

  it('keeps //double slashes and %2F on a site host inside the site', async () => {
    for (const target of ['//healthz', `//object/${track}`, '/%2Fhealthz', `/object%2F${track}`]) {
      const res = await get(target);
      expect([target, [400, 404].includes(res.status)]).toEqual([target, true]);
      expectNoGatewayRoute(res, target);
    }
  });

  it('answers hidden paths with the built-in 404, never a page of the tape', async () => {
    for (const path of ['/.env', '/%2eenv', '/.well-known/acme-challenge/x', '/a/.git/config']) {
      for (const via of [get(path), get(`/site/${site.tape}${path}`, `127.0.0.1:${gw.port}`)]) {
        const res = await via;
        expect([path, res.status]).toEqual([path, 404]);
        expect(res.body).toContain('404 Not Found');
        expect(res.body).not.toContain(TENANT_404);
      }
    }
  });

  describe('the S3 listener', () => {
    const s3 = (target: string, hostHeader: string) =>
      raw(gw.s3Url, [`GET ${target} HTTP/1.1`, `Host: ${hostHeader}`, 'Connection: close']);

    it('answers an absolute-form target with its authority as the origin-form one', async () => {
      const own = new URL(gw.s3Url).host;
      const origin = await s3('/', own);
      const absolute = await s3(`http://${own}/`, own);
      expect(absolute.status).toBe(origin.status);
      expect(absolute.body.replace(/<RequestId>.*<\/RequestId>/, '')).toBe(
        origin.body.replace(/<RequestId>.*<\/RequestId>/, ''),
      );
    });

    it('refuses another authority, asterisk-form and authority-form, in S3 XML', async () => {
      const own = new URL(gw.s3Url).host;
      for (const target of ['http://x/', `http://${host}/healthz`, '*', own]) {
        const res = await s3(target, own);
        expect([target, res.status >= 400 && res.status < 500]).toEqual([target, true]);
        expect(res.body).toContain('<Error>');
        expect(res.body).not.toContain(HEALTH_MARKER);
      }
      expect((await s3('http://x/', own)).body).toContain('<Code>InvalidURI</Code>');
    });
  });
});
