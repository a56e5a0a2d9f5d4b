import { startHttpProxy } from './http-proxy';

/**
 * An HTTP proxy that passes every request through unchanged and records `METHOD /path` of
 * each: what a client really sent a server.
 */
export interface RecordingProxy {
  url: string;
  /** `METHOD /path?query`, in arrival order. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: string[] = [];
  const proxy = await startHttpProxy(target, (req) => {
    requests.push(`${req.method} ${req.url}`);
  });
  return { ...proxy, requests };
}
