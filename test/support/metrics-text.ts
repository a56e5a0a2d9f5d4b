import type { GatewayProcess } from './gateway-process';

/** The gateway's Prometheus text, scraped from its admin listener. */
export async function metricsText(gw: Pick<GatewayProcess, 'adminUrl'>): Promise<string> {
  const res = await fetch(`${gw.adminUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** The value of one sample line (`name{labels} value`, or `name value` with no labels), 0 when absent. */
export function sample(text: string, name: string, labels = ''): number {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}}`;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
