import type { GatewayProcess } from '../processes/gateway';

/** The gateway's Prometheus text, scraped from its admin listener. */
export async function metricsText(gw: Pick<GatewayProcess, 'adminUrl'>): Promise<string> {
  const res = await fetch(`${gw.adminUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/**
 * The value of one sample line (`name{labels} value`, or `name value` with no labels), 0 when
 * absent: for a labelled counter, which appears only once it is first incremented. A figure a
 * verdict or an assertion depends on reads `requiredSample`, so that a renamed or lost metric
 * fails instead of reading as 0.
 */
export function sample(text: string, name: string, labels = ''): number {
  return findSample(text, name, labels) ?? 0;
}

/** The value of one sample line; throws when the line is absent or its value is not a number. */
export function requiredSample(text: string, name: string, labels = ''): number {
  const value = findSample(text, name, labels);
  const shown = labels === '' ? name : `${name}{${labels}}`;
  if (value === undefined) throw new Error(`/metrics has no sample ${shown}`);
  if (Number.isNaN(value)) throw new Error(`/metrics sample ${shown} is not a number`);
  return value;
}

function findSample(text: string, name: string, labels: string): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}}`;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
