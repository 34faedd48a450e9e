import { clipText } from '../domain/clip-text.ts';
import { renderTask } from '../crew/index.ts';
import type { TaskDefinition } from '../domain/crew.ts';
import { CrewdError, isCrewdError } from '../domain/errors.ts';
import { summarize } from '../domain/task-output.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { runAgentLoop } from './agent-loop.ts';
import type { AgentLoopOptions } from './agent-loop.ts';
import { attemptShared, openAgentSession } from './agent-session.ts';
import { ListenerError } from './run-context.ts';
import type { RunContext } from './run-context.ts';
import { delegationToolNames, workTools } from './delegation-tools.ts';
import { applyGuardrails } from './guardrails.ts';
import type { TaskAnswer } from './guardrails.ts';
import { correctionRequest, guardrailRetrySection, systemPrompt, taskPrompt } from './prompts.ts';
import { createStructuredOutputChecker } from './structured-output.ts';
import type { TaskPlan } from './task-plan.ts';
import { StepReplay } from './step-journal.ts';
import type { StepJournal } from './step-journal.ts';
import { saveOutputFile } from './save-output-file.ts';
import { withAgentLimits } from './agent-limits.ts';
import { withCurrentDate } from './task-date.ts';
import { taskLead } from './task-lead.ts';
import type { TaskLead } from './task-lead.ts';
import { withTriggerPayload } from './trigger-payload.ts';

/**
 * Runs one attempt of a task: emits `task-start`, the model calls and agent steps, and returns the output.
 * Emitting `task-end` is the process's job, since only it knows whether the run pauses there.
 * Any failure becomes `TASK_FAILED` naming the task; an abort rethrows the signal's reason.
 */
export async function runTask(run: RunContext, plan: TaskPlan): Promise<TaskOutput> {
  const { signal } = run.request;
  try {
    const { task, agent } = renderTask(run.request.crew, plan.task, run.request.inputs);
    const lead = taskLead(run, task, agent);
    await run.emit({ type: 'task-start', taskId: task.name, agent: lead.agent.role, attempt: plan.attempt });
    // One replay for every execution of the attempt: a retry goes on through the journal where the last one stopped.
    const replay = replayFor(run.request.checkpoint.journal, task.name, plan.attempt);
    const output = await withAgentLimits(run, lead.agent, (limited) =>
      attemptTask(limited, plan, task, lead, replay),
    );
    return await saveOutputFile(run.request, task, output);
  } catch (error) {
    if (error instanceof ListenerError) throw error;
    signal.throwIfAborted();
    const name = plan.task.name;
    throw new CrewdError('TASK_FAILED', `Task '${name}' failed: ${causeText(error)}`, {
      cause: error,
      details: { task_id: name },
    });
  }
}

async function attemptTask(
  run: RunContext,
  plan: TaskPlan,
  task: TaskDefinition,
  lead: TaskLead,
  replay: StepReplay | undefined,
): Promise<TaskOutput> {
  const { request } = run;
  const { agent } = lead;
  const check =
    task.outputJson === undefined ? undefined : createStructuredOutputChecker(task.name, task.outputJson);
  const dated = withCurrentDate(task, agent, (request.clock ?? (() => new Date()))());
  const prompt = taskPrompt({ ...plan, task: withTriggerPayload(request.crew, dated, request.inputs) });
  // Added fields come before a spread on a run's path: on Node 20, fields added after a leading spread take V8's
  // slow path (microseconds each).
  const shared = { delegations: 0, ...attemptShared(task, plan.attempt, replay) };
  const delegator = { agent, scope: '', chain: [agent.role], coworkers: lead.coworkers };
  const session = openAgentSession(run, shared, {
    agent,
    prompt,
    scope: '',
    tools: workTools(run, shared, delegator, lead.tools),
    uncached: delegationToolNames,
  });
  const loop: Omit<AgentLoopOptions, 'messages'> = {
    responseSchema: task.outputJson === undefined ? undefined : { name: task.name, schema: task.outputJson },
    ...session.loop,
  };

  /** The agent works the task to a final answer, checked against `output_json` when the task has one. */
  const answer = async (userPrompt: string): Promise<TaskAnswer> => {
    let result = await runAgentLoop({
      messages: [
        { role: 'system', content: systemPrompt(agent) },
        { role: 'user', content: userPrompt },
      ],
      ...loop,
    });
    if (check === undefined) return { answer: result.answer, outputJson: null };
    let checked = check(result.answer);
    if (!checked.valid) {
      // One more chance, telling the agent what was wrong; a second miss fails the task.
      const messages = [
        ...result.messages,
        { role: 'user' as const, content: correctionRequest(checked.problem) },
      ];
      result = await runAgentLoop({ messages, ...loop });
      checked = check(result.answer);
    }
    if (!checked.valid) {
      throw new CrewdError(
        'OUTPUT_INVALID',
        `the answer of task '${task.name}' does not match its output_json schema (${checked.problem})`,
      );
    }
    return { answer: result.answer, outputJson: checked.value };
  };

  const result = await applyGuardrails(await answer(prompt), {
    task,
    agent: agent.role,
    attempt: plan.attempt,
    registry: request.tools,
    call: session.loop.call,
    emit: (event) => run.emit(event),
    reported: () => shared.replay?.guardrailReported() ?? false,
    retry: (error, previous) => answer(prompt + guardrailRetrySection(error, previous)),
    checkJson: check,
  });
  await session.step(result.answer, null, null, result.answer);
  return {
    taskId: task.name,
    // Copies, with the inputs filled in: clipped, as every status and task webhook repeats them.
    description: clipText(task.description),
    expectedOutput: clipText(task.expectedOutput),
    summary: summarize(result.answer),
    agent: agent.role,
    output: result.answer,
    outputJson: result.outputJson,
    usage: shared.usage,
    attempt: plan.attempt,
  };
}

/** A replay of the journal when it belongs to this very attempt; a journal of another attempt is stale. */
function replayFor(
  journal: StepJournal | undefined,
  taskId: string,
  attempt: number,
): StepReplay | undefined {
  if (journal === undefined || journal.taskId !== taskId || journal.attempt !== attempt) return undefined;
  return new StepReplay(journal.entries);
}

/** Only our own messages reach users; anything else is reported without its text. */
function causeText(error: unknown): string {
  return isCrewdError(error) ? error.message : 'an internal error occurred';
}
