/** Token usage, summed per model call, per task and per execution. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Model calls that returned an answer. */
  readonly successfulRequests: number;
  /** The cost in US dollars of the calls whose model has a known price; absent before any call was priced. */
  readonly costUsd?: number;
  /** Calls whose model has no known price, so their cost is missing from `costUsd`; absent when none. */
  readonly unpricedRequests?: number;
}

export const emptyUsage: TokenUsage = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  successfulRequests: 0,
};

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const priced = a.costUsd !== undefined || b.costUsd !== undefined;
  const unpriced = (a.unpricedRequests ?? 0) + (b.unpricedRequests ?? 0);
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    successfulRequests: a.successfulRequests + b.successfulRequests,
    // Present only once a call was priced, so usage without prices keeps its old shape.
    ...(priced ? { costUsd: roundUsd((a.costUsd ?? 0) + (b.costUsd ?? 0)) } : {}),
    ...(unpriced > 0 ? { unpricedRequests: unpriced } : {}),
  };
}

/** Dollars summed from many small prices keep float noise out of what users read. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
