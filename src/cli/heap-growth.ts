/**
 * How far V8 lets the old generation grow past the live heap before a full collection, for `crewd serve`. V8's
 * own choice grows with how cheap collections look, up to 4x: a server with 30 MB live climbs to about 150 MB of
 * uncollected garbage under load and keeps it when the load stops. At 25% it holds about 10 MB more than is live,
 * for more full collections; server CPU per three-task run measured the same within noise (2.99–4.52 ms against
 * 3.37–4.67 ms with V8's own choice).
 */
export const serverHeapGrowingPercent = 25;

/** The V8 flag to set, or undefined when the operator started Node with a heap-growing setting of their own. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return undefined;
  return `--heap-growing-percent=${serverHeapGrowingPercent}`;
}
