import { approximateJsonBytes } from '../domain/approximate-size.ts';
import type { Execution } from '../domain/execution.ts';

/**
 * About how many bytes an execution and its `/status` object take: the status repeats `meta` with every task
 * payload (and the last task and step), and the outputs once more as `last_executed_task`.
 */
export function executionWeight(execution: Execution): number {
  const meta = execution.meta === null ? 0 : approximateJsonBytes(execution.meta);
  const outputs = approximateJsonBytes(execution.outputs);
  return approximateJsonBytes(execution) + outputs + meta * (execution.outputs.length + 3);
}
