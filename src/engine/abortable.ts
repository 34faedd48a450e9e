/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts, so a tool or model adapter
 * that ignores its signal cannot hold up a cancelled run.
 */
export async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  // The work may still fail after an abort; that late rejection has no one left to hear it.
  promise.catch(() => undefined);
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Waits `ms` milliseconds; rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return abortable(elapsed, signal).finally(() => clearTimeout(timer));
}
