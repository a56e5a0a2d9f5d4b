/**
 * web3.js does not give up when the RPC goes away in the middle of a confirmation: it polls the
 * block height forever (errors read as "not yet") and retries its WebSocket subscription in a
 * loop that logs and allocates until the process runs out of memory. So work that sends
 * transactions runs beside a watchdog that pings the RPC and, after two failed pings in a row,
 * fails with the ping's own error ("cannot reach the chain RPC at <url>").
 */
export async function withChainWatchdog<T>(
  ping: () => Promise<void>,
  work: Promise<T>,
  intervalMs = 2000,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  // If the watchdog wins, the work may still fail later: that is no longer anyone's concern.
  work.catch(() => undefined);
  const watchdog = new Promise<never>((_, reject) => {
    let failures = 0;
    const tick = () => {
      ping().then(
        () => {
          failures = 0;
          if (!settled) timer = setTimeout(tick, intervalMs);
        },
        (err: unknown) => {
          if (++failures >= 2) reject(err instanceof Error ? err : new Error(String(err)));
          else if (!settled) timer = setTimeout(tick, intervalMs);
        },
      );
    };
    timer = setTimeout(tick, intervalMs);
  });
  watchdog.catch(() => undefined);
  try {
    return await Promise.race([work, watchdog]);
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}
