const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * Milliseconds of a duration written as a whole number and a unit: `90s`, `45m`, `12h`, `30d`, `2w`; undefined
 * when it is not written so.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d{1,9})\s*([smhdw])\s*$/i.exec(text);
  if (match === null) return undefined;
  const amount = Number(match[1]);
  const unit = match[2]!.toLowerCase() as keyof typeof unitMs;
  return amount > 0 ? amount * unitMs[unit] : undefined;
}
