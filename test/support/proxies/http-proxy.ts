import { IncomingMessage, request, ServerResponse } from 'node:http';
import { listenLoopback } from './loopback-server';

/**
 * What a proxy does with one request's answer: called once the upstream answer's head arrived;
 * it writes `res` (or hangs up). `passAnswer` is the honest one.
 */
export type AnswerWriter = (answer: IncomingMessage, res: ServerResponse) => void;

/**
 * A proxy's behaviour: sees each request as it arrives (in arrival order) and returns how its
 * answer is written; nothing returned: passed on unchanged.
 */
export type ProxyBehaviour = (req: IncomingMessage) => AnswerWriter | void;

export interface HttpProxy {
  url: string;
  close(): Promise<void>;
}

/** Status and headers as upstream sent them (raw: duplicates and case kept), then the body. */
export const passAnswer: AnswerWriter = (answer, res) => {
  res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
  answer.pipe(res);
};

/**
 * The core of the harness's HTTP proxies: every request is forwarded to `target` as it came
 * (method, path, headers, the Host header too, so SigV4 signatures made for the proxy's address
 * still verify upstream; the body streamed), and `behaviour` decides what the client gets back.
 * An upstream failure hangs up on the client; a client that goes away cancels the upstream request.
 */
export async function startHttpProxy(
  target: string,
  behaviour: ProxyBehaviour = () => undefined,
): Promise<HttpProxy> {
  const upstream = new URL(target);
  const loopback = await listenLoopback((req, res) => {
    const write = behaviour(req) ?? passAnswer;
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        answer.on('error', () => res.destroy());
        write(answer, res);
      },
    );
    forwarded.on('error', () => res.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  return { url: loopback.url, close: loopback.close };
}
