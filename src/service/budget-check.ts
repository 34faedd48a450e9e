import {
  extendedBudget,
  spendOf,
  utcDayOf,
  wouldPass,
  type Budget,
  type BudgetReached,
  type Spend,
} from '../domain/budget.ts';
import type { Execution } from '../domain/execution.ts';
import { budgetApprovals, type TaskOutput } from '../domain/task-output.ts';
import { addUsage, emptyUsage } from '../domain/usage.ts';
import type { PlannedModelCall } from '../engine/run-request.ts';
import type { ExecutionStore } from '../store/store.ts';

/**
 * The budget the planned call could pass, or undefined when it may be made: the execution's own (settled usage
 * plus the attempt's calls so far, plus the call's prompt). Cheap when the execution has no budget: the call's
 * estimate, which reads the whole conversation, is only worked out when there is one.
 */
export function executionBudgetReached(
  execution: Execution,
  call: PlannedModelCall,
): BudgetReached | undefined {
  const budget = execution.budget;
  if (budget === undefined) return undefined;
  const limit = extendedBudget(budget, budgetApprovals(execution.feedback, 'execution'));
  const spent = spendOf(addUsage(execution.usage, call.attemptUsage));
  return wouldPass(limit, spent, call.estimate()) ? { scope: 'execution', limit, spent } : undefined;
}

/**
 * The daily budget of the execution's token the planned call could pass, or undefined: what the token's
 * executions logged today (UTC, by `now`) plus the call's prompt. Each approval of this execution's daily pauses
 * adds the first amounts again, for this execution.
 */
export async function dailyBudgetReached(
  execution: Execution,
  call: PlannedModelCall,
  now: Date,
  store: Pick<ExecutionStore, 'tokenSpend'>,
): Promise<BudgetReached | undefined> {
  const daily = execution.dailyBudget;
  if (daily === undefined) return undefined;
  const day = utcDayOf(now);
  const spent = await store.tokenSpend(execution.owner.tokenId, day.start, day.end);
  const limit = extendedBudget(daily, budgetApprovals(execution.feedback, 'daily'));
  return wouldPass(limit, spent, call.estimate()) ? { scope: 'daily', limit, spent } : undefined;
}

/** What a budget pause shows as its pending output: a sentence with the budget and the spend. */
export function budgetPauseOutput(call: PlannedModelCall, reached: BudgetReached): TaskOutput {
  const text =
    `The ${reached.scope === 'daily' ? "token's daily budget" : "execution's budget"} of ` +
    `${describe(reached.limit)} would be passed by the next model call: ${describeSpend(reached.spent)} spent ` +
    'so far. Approve to extend the budget by its first amounts; reject to end the execution.';
  return {
    taskId: call.taskId,
    description: '',
    expectedOutput: '',
    summary: 'Budget reached',
    agent: call.agent,
    output: text,
    outputJson: null,
    usage: emptyUsage,
    attempt: call.attempt,
  };
}

function describe(budget: Budget): string {
  const parts = [
    ...(budget.tokens === undefined ? [] : [`${budget.tokens} tokens`]),
    ...(budget.costUsd === undefined ? [] : [`$${budget.costUsd} USD`]),
  ];
  return parts.join(' and ');
}

function describeSpend(spent: Spend): string {
  const unpriced =
    spent.unpricedRequests === 0 ? '' : ` (${spent.unpricedRequests} calls of unpriced models)`;
  return `${spent.tokens} tokens and $${spent.costUsd} USD${unpriced}`;
}
