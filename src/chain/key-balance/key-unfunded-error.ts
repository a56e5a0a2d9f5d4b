import { solText } from './key-balance-limits';

/**
 * A write this gateway cannot pay for: its storage-authority key holds less than one
 * transaction's fee. Final for the request (retrying cannot help until an operator funds the
 * key), so edges answer it at once with a status clients do not retry (507), naming the key.
 */
export class StorageAuthorityUnfundedError extends Error {
  constructor(
    readonly key: string,
    readonly lamports: number,
    readonly neededLamports: number,
  ) {
    const short =
      lamports < neededLamports
        ? `less than the ${solText(neededLamports)} SOL one transaction costs`
        : 'not enough for its fees and rent';
    super(
      `the gateway cannot pay for this write: its storage-authority key ${key} holds ` +
        `${solText(lamports)} SOL, ${short}; the gateway's operator must fund ${key}`,
    );
    this.name = 'StorageAuthorityUnfundedError';
  }
}
