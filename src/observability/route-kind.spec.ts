import type { IncomingMessage } from 'node:http';
import { SiteConfig } from '../config/site.config';
import { HostRouter } from '../domains/host-router';
import { TxtBindingService } from '../domains/txt-binding.service';
import { MainRouteKinds } from './route-kind';

const hosts = new HostRouter(
  Object.assign(new SiteConfig(), {
    subdomain_suffix: 'sites.test',
    domains: { 'shop.example': 'So11111111111111111111111111111111111111112' },
  }),
  {} as TxtBindingService,
);
// As the site edge answers the main listener (src/site/site-edge.ts, ownsHost).
const kinds = new MainRouteKinds({ isSiteHost: (host) => hosts.route(host).kind !== 'gateway' });

function req(host: string, url: string): IncomingMessage {
  return { headers: { host }, url } as unknown as IncomingMessage;
}

describe('MainRouteKinds', () => {
  it('site hosts are site requests whatever the path (the site edge answers them)', () => {
    expect(kinds.of(req('abc.sites.test', '/object/x'))).toBe('site');
    expect(kinds.of(req('shop.example', '/healthz'))).toBe('site');
  });

  it('gateway hosts by path prefix', () => {
    expect(kinds.of(req('localhost', '/site/Tape111/index.html'))).toBe('site');
    expect(kinds.of(req('localhost', '/object/abc'))).toBe('object');
    expect(kinds.of(req('localhost', `/tracks/${'a'.repeat(64)}/chunks`))).toBe('object');
    expect(kinds.of(req('localhost', '/upload/abc'))).toBe('upload');
    expect(kinds.of(req('localhost', '/healthz'))).toBe('health');
    expect(kinds.of(req('localhost', '/metrics'))).toBe('other');
    expect(kinds.of(req('localhost', '/objectives'))).toBe('other');
  });
});
