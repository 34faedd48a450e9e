import type { TaskOutput } from '../domain/task-output.ts';
import { addUsage, emptyUsage } from '../domain/usage.ts';
import type { RunContext } from './run-context.ts';
import type { RunOutcome } from './run-request.ts';
import { runTask } from './run-task.ts';
import { planTask } from './task-plan.ts';

/**
 * crewAI's sequential process: tasks in file order, each one's output feeding the context of later ones.
 * Tasks whose output the checkpoint holds are skipped; a human-input task pauses the run after its answer.
 */
export async function runSequentialProcess(run: RunContext): Promise<RunOutcome> {
  const { crew, checkpoint, signal } = run.request;
  const accepted = new Map(checkpoint.outputs.map((output) => [output.taskId, output]));
  let usage = emptyUsage;
  for (const [index, task] of crew.tasks.entries()) {
    if (accepted.has(task.name)) continue;
    signal.throwIfAborted();
    const plan = planTask(task, crew.tasks.slice(0, index), accepted, checkpoint.feedback);
    const output = await runTask(run, plan);
    usage = addUsage(usage, output.usage);
    if (task.humanInput) {
      await run.emit({ type: 'task-end', output, awaitingHumanInput: true });
      return { kind: 'paused', output, usage };
    }
    await run.emit({ type: 'task-end', output, awaitingHumanInput: false });
    accepted.set(task.name, output);
  }
  const outputs = crew.tasks.flatMap((task): TaskOutput[] => {
    const output = accepted.get(task.name);
    return output === undefined ? [] : [output];
  });
  return { kind: 'completed', outputs, usage };
}
