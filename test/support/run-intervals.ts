import type { apiClient } from './crewd.ts';

/** When an execution's tasks ran: from its first task's start to its last task's end, in ms, from its timeline. */
export async function runInterval(
  client: ReturnType<typeof apiClient>,
  executionId: string,
): Promise<{ readonly start: number; readonly end: number }> {
  const { body } = await client.get(`/executions/${executionId}`);
  const timeline = body.timeline as { started_at: string; ended_at: string | null }[];
  return {
    start: Math.min(...timeline.map((entry) => Date.parse(entry.started_at))),
    end: Math.max(...timeline.map((entry) => Date.parse(entry.ended_at ?? entry.started_at))),
  };
}

/** Whether no two of these intervals overlap: each starts at or after the end of the one before it. */
export function oneAtATime(intervals: readonly { readonly start: number; readonly end: number }[]): boolean {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  return sorted.every((interval, index) => index === 0 || interval.start >= sorted[index - 1]!.end);
}
