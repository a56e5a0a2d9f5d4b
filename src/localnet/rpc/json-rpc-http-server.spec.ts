import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RPC_HEADERS_TIMEOUT_MS, RPC_REQUEST_TIMEOUT_MS } from './json-rpc-http-server';

describe('the local network JSON-RPC listener timeouts', () => {
  it('are the ones docs/operator.md gives operators', () => {
    const docs = readFileSync(join(__dirname, '../../../docs/operator.md'), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    const stated =
      /JSON-RPC listener has fixed limits: (\d+) s for the head, (\d+) s for the whole request/.exec(
        docs,
      );
    expect(stated?.slice(1).map(Number)).toEqual([
      RPC_HEADERS_TIMEOUT_MS / 1000,
      RPC_REQUEST_TIMEOUT_MS / 1000,
    ]);
  });
});
