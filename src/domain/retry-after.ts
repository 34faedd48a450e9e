// The preferred HTTP date form (IMF-fixdate, `Wed, 21 Oct 2015 07:28:00 GMT`); Date.parse alone takes almost anything.
const httpDate = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * Milliseconds a `Retry-After` header asks to wait, counted from `nowMs`: delay seconds (`120`; a decimal is read
 * too) or an HTTP date, a date already past meaning no wait. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = httpDate.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
