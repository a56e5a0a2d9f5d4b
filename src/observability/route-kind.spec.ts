import type { IncomingMessage } from 'node:http';
import { SiteConfig } from '../config/site.config';
import { HostRouter } from '../domains/host-router';
import { TxtBindingService } from '../domains/txt-binding.service';
import { SITE_REQUEST } from '../site/site-edge';
import { MainRouteKinds } from './route-kind';

const kinds = new MainRouteKinds(
  new HostRouter(
    Object.assign(new SiteConfig(), {
      subdomain_suffix: 'sites.test',
      domains: { 'shop.example': 'So11111111111111111111111111111111111111112' },
    }),
    {} as TxtBindingService,
  ),
);

function req(host: string, url: string, extra: object = {}): IncomingMessage {
  return { headers: { host }, url, ...extra } as unknown as IncomingMessage;
}

describe('MainRouteKinds', () => {
  it('site hosts are site requests whatever the path (the site edge answers them)', () => {
    expect(kinds.of(req('abc.sites.test', '/object/x'))).toBe('site');
    expect(kinds.of(req('shop.example', '/healthz'))).toBe('site');
    expect(kinds.of(req('127.0.0.1', '/x', { [SITE_REQUEST]: true }))).toBe('site');
  });

  it('gateway hosts by path prefix', () => {
    expect(kinds.of(req('localhost', '/site/Tape111/index.html'))).toBe('site');
    expect(kinds.of(req('localhost', '/object/abc'))).toBe('object');
    expect(kinds.of(req('localhost', '/upload/abc'))).toBe('upload');
    expect(kinds.of(req('localhost', '/healthz'))).toBe('health');
    expect(kinds.of(req('localhost', '/metrics'))).toBe('other');
    expect(kinds.of(req('localhost', '/objectives'))).toBe('other');
  });
});
