import { roundUsd, type TokenUsage } from './usage.ts';

/**
 * A limit on what an execution may spend on model calls: tokens, US dollars, or both. An execution about to pass
 * it pauses for a person's approval instead of failing; each approval adds the same amounts again.
 */
export interface Budget {
  readonly tokens?: number;
  readonly costUsd?: number;
}

/** Which budget an execution reached: its own, or its token's for the day. */
export type BudgetScope = 'execution' | 'daily';

/** What has been spent against a budget: tokens, and the cost of the calls whose price is known. */
export interface Spend {
  readonly tokens: number;
  readonly costUsd: number;
  /** Model calls whose model has no known price: their cost is not in `costUsd`. */
  readonly unpricedRequests: number;
}

/** A budget an execution has reached, as its pause shows it. */
export interface BudgetReached {
  readonly scope: BudgetScope;
  /** The limit in force when the execution paused (the first amounts times one plus the approvals so far). */
  readonly limit: Budget;
  readonly spent: Spend;
}

/** The model call about to be made, as far as a budget check can know it before making it. */
export interface CallEstimate {
  /** The prompt's tokens, estimated from its length. */
  readonly tokens: number;
  /** The prompt's cost at the model's price; undefined when the model has no known price. */
  readonly costUsd: number | undefined;
}

export function spendOf(usage: TokenUsage): Spend {
  return {
    tokens: usage.totalTokens,
    costUsd: usage.costUsd ?? 0,
    unpricedRequests: usage.unpricedRequests ?? 0,
  };
}

/** The budget once `approvals` approvals have each added its first amounts again. */
export function extendedBudget(budget: Budget, approvals: number): Budget {
  const times = 1 + approvals;
  return {
    ...(budget.tokens === undefined ? {} : { tokens: budget.tokens * times }),
    ...(budget.costUsd === undefined ? {} : { costUsd: roundUsd(budget.costUsd * times) }),
  };
}

/**
 * True when making the call could pass the budget: the spend so far plus the call's estimate goes over a limit.
 * A call of a model with no known price is checked against the token limit only.
 */
export function wouldPass(limit: Budget, spent: Spend, call: CallEstimate): boolean {
  if (limit.tokens !== undefined && spent.tokens + call.tokens > limit.tokens) return true;
  if (limit.costUsd === undefined || call.costUsd === undefined) return false;
  return spent.costUsd + call.costUsd > limit.costUsd;
}

const dayMs = 24 * 60 * 60 * 1000;

/** The UTC day `now` falls in, as the range a token's daily budget counts spend over: [start, end). */
export function utcDayOf(now: Date): { readonly start: Date; readonly end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { start, end: new Date(start.getTime() + dayMs) };
}
