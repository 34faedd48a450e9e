/**
 * The destination a webhook URL is delivered to, for fairness between receivers: its scheme and authority
 * (host and port), lower-cased, up to the first `/` after `://`. The stores compute the same text in SQL, so it is
 * kept this plain.
 */
export function deliveryTargetOf(url: string): string {
  return (/^[^:]*:\/\/[^/]*/.exec(url)?.[0] ?? url).toLowerCase();
}
