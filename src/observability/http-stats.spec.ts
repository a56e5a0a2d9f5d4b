import { Registry } from 'prom-client';
import { HttpStats } from './http-stats';

/** The metrics text, by line, of a fresh HttpStats registered and fed `observations`. */
async function metricLinesAfter(observations: Parameters<HttpStats['observe']>[]) {
  const stats = new HttpStats();
  const registry = new Registry();
  stats.register(registry);
  for (const o of observations) stats.observe(...o);
  return (await registry.metrics()).split('\n');
}

describe('HttpStats', () => {
  it('exposes requests by status class, a cumulative latency histogram and bytes', async () => {
    const lines = await metricLinesAfter([
      ['main', 'site', 200, 0.0004, 100],
      ['main', 'site', 304, 0.002, 50],
      ['main', 'site', 429, 200, 0],
      ['s3', 's3', 503, 0.01, 10],
    ]);
    expect(lines).toContain('# TYPE tape_http_requests_total counter');
    expect(lines).toContain('# TYPE tape_http_request_duration_seconds histogram');
    expect(lines).toContain(
      'tape_http_requests_total{listener="main",kind="site",status_class="2xx"} 1',
    );
    expect(lines).toContain(
      'tape_http_requests_total{listener="main",kind="site",status_class="3xx"} 1',
    );
    expect(lines).toContain(
      'tape_http_requests_total{listener="main",kind="site",status_class="4xx"} 1',
    );
    expect(lines).toContain(
      'tape_http_requests_total{listener="s3",kind="s3",status_class="5xx"} 1',
    );
    expect(lines).toContain(
      'tape_http_request_duration_seconds_bucket{le="0.0005",listener="main",kind="site"} 1',
    );
    expect(lines).toContain(
      'tape_http_request_duration_seconds_bucket{le="0.0025",listener="main",kind="site"} 2',
    );
    expect(lines).toContain(
      'tape_http_request_duration_seconds_bucket{le="120",listener="main",kind="site"} 2',
    );
    expect(lines).toContain(
      'tape_http_request_duration_seconds_bucket{le="+Inf",listener="main",kind="site"} 3',
    );
    expect(lines).toContain(
      'tape_http_request_duration_seconds_count{listener="main",kind="site"} 3',
    );
    expect(lines).toContain('tape_http_response_bytes_total{listener="main",kind="site"} 150');
  });

  it('keeps each (listener, kind) apart, however their names would join', async () => {
    const lines = await metricLinesAfter([
      ['main', 'other', 200, 0.001, 1],
      ['admin', 'other', 200, 0.001, 2],
      ['mai', 'nother', 200, 0.001, 4],
    ]);
    expect(lines).toContain('tape_http_response_bytes_total{listener="main",kind="other"} 1');
    expect(lines).toContain('tape_http_response_bytes_total{listener="admin",kind="other"} 2');
    expect(lines).toContain('tape_http_response_bytes_total{listener="mai",kind="nother"} 4');
  });

  it('counts each (listener, kind) apart when they alternate and repeat', async () => {
    const bytesOf: Record<string, number> = { 'main site': 1, 'main object': 10, 's3 site': 100 };
    const order = ['main site', 'main site', 'main object', 's3 site', 'main site', 's3 site'];
    const lines = await metricLinesAfter(
      [...order, 'main object'].map((pair) => {
        const [listener, kind] = pair.split(' ');
        return [listener, kind, 200, 0.001, bytesOf[pair]];
      }),
    );
    expect(lines).toContain('tape_http_response_bytes_total{listener="main",kind="site"} 3');
    expect(lines).toContain('tape_http_response_bytes_total{listener="main",kind="object"} 20');
    expect(lines).toContain('tape_http_response_bytes_total{listener="s3",kind="site"} 200');
  });
});
