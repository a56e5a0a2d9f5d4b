import { StoredAccount } from '../../ledger/ledger-store';
import { AccountEncoding, encodeAccount } from '../account-encoding';
import { toJsonText } from '../json-text';
import { base64Length, ResponseBudget } from '../response-budget';
import { RpcError } from '../rpc-error';

/** How the JSON of an account with base64 data (and no data) begins: `data` is the first key. */
const BASE64_DATA_START = '{"data":["';

/**
 * One written account as notification JSON, encoded at most once per encoding however many
 * subscriptions (account or program, on any number of sockets) want it, and kept as one Buffer
 * that every socket's queue refers to.
 */
export class AccountJson {
  private readonly byEncoding = new Map<AccountEncoding, Buffer | null>();

  constructor(
    private readonly account: StoredAccount,
    private readonly maxBytes: number,
    private readonly onInternalError: (method: string, err: unknown) => void,
  ) {}

  /**
   * The account's JSON bytes, or null when it cannot be sent: base58 of more than 128 bytes
   * (Solana refuses it too) or more than a response may hold. `binary` is sent as `base58`.
   */
  get(requested: AccountEncoding): Buffer | null {
    const encoding = requested === 'binary' ? 'base58' : requested;
    let bytes = this.byEncoding.get(encoding);
    if (bytes === undefined) {
      bytes = this.encode(encoding);
      this.byEncoding.set(encoding, bytes);
    }
    return bytes;
  }

  private encode(encoding: AccountEncoding): Buffer | null {
    try {
      const budget = new ResponseBudget(this.maxBytes);
      // Base58 is at most 128 bytes of data; parsed JSON is not built for notifications.
      if (encoding === 'base58') {
        return Buffer.from(
          toJsonText(encodeAccount(this.account, encoding, undefined, undefined, budget)),
        );
      }
      return this.base64Json(budget);
    } catch (err) {
      if (!(err instanceof RpcError)) this.onInternalError('accountNotification', err);
      return null;
    }
  }

  /**
   * The base64 account JSON written straight into one Buffer: the fields come from
   * encodeAccount with no data (one source of the shape), the base64 text goes in its place.
   * Base64 needs no JSON escaping; stringifying 14 MB of it and splicing the u64 `rentEpoch`
   * back in took ~160 ms of the event loop per write of a 10 MiB account.
   */
  private base64Json(budget: ResponseBudget): Buffer {
    const data = this.account.data;
    const empty = { offset: 0, length: 0 };
    const frame = toJsonText(encodeAccount(this.account, 'base64', empty, undefined, budget));
    if (!frame.startsWith(`${BASE64_DATA_START}"`)) {
      throw new Error(`unexpected account JSON: ${frame.slice(0, 40)}`);
    }
    budget.charge(base64Length(data.length));
    const base64 = data.toString('base64');
    const rest = frame.slice(BASE64_DATA_START.length);
    const out = Buffer.allocUnsafe(
      BASE64_DATA_START.length + base64.length + Buffer.byteLength(rest),
    );
    let at = out.write(BASE64_DATA_START, 0, 'latin1');
    at += out.write(base64, at, 'latin1');
    out.write(rest, at, 'utf8');
    return out;
  }
}
