import { parseRetryAfterMs } from '../domain/retry-after.ts';

/**
 * Seconds a provider asked us to wait: `retry-after-ms` (OpenAI) first, then `Retry-After` as seconds or as an
 * HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterSeconds(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  nowMs: number,
): number | undefined {
  if (headers === undefined) return undefined;
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const milliseconds = Number(lower['retry-after-ms']?.trim() || Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds / 1000;
  const afterMs = parseRetryAfterMs(lower['retry-after'], nowMs);
  return afterMs === undefined ? undefined : afterMs / 1000;
}
