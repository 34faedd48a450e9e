import { renderAgent } from '../crew/index.ts';
import type { AgentDefinition } from '../domain/crew.ts';
import { isCrewdError } from '../domain/errors.ts';
import { defuseSlotMarkers as defuse } from '../domain/feedback-slot.ts';
import { agentTools } from './agent-resources.ts';
import { runAgentLoop } from './agent-loop.ts';
import { openAgentSession } from './agent-session.ts';
import type { AttemptShared } from './agent-session.ts';
import { ListenerError } from './run-context.ts';
import type { RunContext } from './run-context.ts';
import { systemPrompt } from './prompts.ts';
import { TaskStoppingError } from './tool.ts';
import type { Tool } from './tool.ts';

export const delegateWorkToolName = 'Delegate work to coworker';
export const askQuestionToolName = 'Ask question to coworker';
export const delegationToolNames: ReadonlySet<string> = new Set([delegateWorkToolName, askQuestionToolName]);

/**
 * How far delegation may go in one task attempt: coworkers asking coworkers at most `maxDepth` levels down, and at
 * most `maxDelegations` delegations in all. Past either, the task fails: agents handing work back and forth would
 * otherwise spend tokens without end.
 */
export const delegationLimits = { maxDepth: 3, maxDelegations: 20 } as const;

/** An agent at work in a task attempt, as its delegations need to know it. */
export interface Delegator {
  /** Rendered (inputs filled in). */
  readonly agent: AgentDefinition;
  readonly scope: string;
  /** Roles from the task's agent down to this one. */
  readonly chain: readonly string[];
  /** Rendered agents it may hand work to or ask. */
  readonly coworkers: readonly AgentDefinition[];
}

/** Each attempt counts its delegations here. */
export interface DelegationCount {
  delegations: number;
}

/**
 * The tools an agent works with in a task attempt: its own (`own`) and, when it has coworkers, crewAI's two
 * delegation tools over them.
 */
export function workTools(
  run: RunContext,
  shared: AttemptShared & DelegationCount,
  delegator: Delegator,
  own: readonly Tool[],
): Tool[] {
  if (delegator.coworkers.length === 0) return [...own];
  return [...own, ...delegationTools(run, shared, delegator)];
}

function delegationTools(
  run: RunContext,
  shared: AttemptShared & DelegationCount,
  delegator: Delegator,
): Tool[] {
  const roster = delegator.coworkers.map((coworker) => `- ${coworker.role}`).join('\n');
  const tool = (name: string, noun: 'task' | 'question', description: string): Tool => ({
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        [noun]:
          noun === 'task'
            ? { type: 'string', description: 'The task to hand over' }
            : { type: 'string', description: 'The question to ask' },
        context: {
          type: 'string',
          description: `Everything the coworker needs to know to ${noun === 'task' ? 'do the task' : 'answer'}`,
        },
        coworker: { type: 'string', description: 'The role of the coworker' },
      },
      required: [noun, 'context', 'coworker'],
    },
    // A coworker's work is a whole agent loop of its own: only the execution's signal bounds it.
    timeoutMs: 2 ** 31 - 1,
    checkInput: (input) => missingText(input, [noun, 'context', 'coworker']),
    run: (input, context) => {
      const args = input as Record<string, unknown>;
      return delegate(run, shared, delegator, {
        request: String(args[noun]),
        context: typeof args.context === 'string' ? args.context : '',
        coworker: coworkerArgument(args),
        callId: context.toolCallId,
      });
    },
  });
  return [
    tool(
      delegateWorkToolName,
      'task',
      `Hand a specific task to one of these coworkers:\n${roster}\nGive the coworker's role, the task, and ALL ` +
        'the context needed to do it: they know nothing about it, so share everything you know and explain ' +
        'things instead of referring to them.',
    ),
    tool(
      askQuestionToolName,
      'question',
      `Ask one of these coworkers a specific question:\n${roster}\nGive the coworker's role, the question, and ` +
        'ALL the context needed to answer it: they know nothing about it, so share everything you know and ' +
        'explain things instead of referring to them.',
    ),
  ];
}

interface Delegation {
  readonly request: string;
  readonly context: string;
  readonly coworker: string;
  readonly callId: string;
}

async function delegate(
  run: RunContext,
  shared: AttemptShared & DelegationCount,
  delegator: Delegator,
  delegation: Delegation,
): Promise<string> {
  const wanted = comparable(delegation.coworker);
  const coworker = delegator.coworkers.find(
    (candidate) => comparable(candidate.role) === wanted || comparable(candidate.name) === wanted,
  );
  if (coworker === undefined) {
    const options = delegator.coworkers.map((candidate) => `- ${candidate.role}`).join('\n');
    return `Error: there is no coworker '${delegation.coworker}'; it must be one of:\n${options}`;
  }
  const chain = [...delegator.chain, coworker.role];
  if (chain.length - 1 > delegationLimits.maxDepth) {
    throw new TaskStoppingError(
      `delegation went more than ${delegationLimits.maxDepth} levels deep (${chain.join(' -> ')}); ` +
        'the agents kept handing the work on',
    );
  }
  shared.delegations += 1;
  if (shared.delegations > delegationLimits.maxDelegations) {
    throw new TaskStoppingError(
      `more than ${delegationLimits.maxDelegations} delegations in one attempt; the agents kept handing the work on`,
    );
  }
  try {
    return await coworkerAnswer(
      run,
      shared,
      {
        agent: coworker,
        scope: `${delegator.scope}${delegation.callId}>`,
        chain,
        coworkers: coworker.allowDelegation ? othersThan(run, coworker) : [],
      },
      delegation,
    );
  } catch (error) {
    if (error instanceof TaskStoppingError || error instanceof ListenerError) throw error;
    run.request.signal.throwIfAborted();
    const reason = isCrewdError(error) ? error.message : 'an internal error occurred';
    return `Error: ${coworker.role} could not finish: ${reason}`;
  }
}

/** Runs the coworker's own agent loop on the delegated request and reports its final answer as its step. */
async function coworkerAnswer(
  run: RunContext,
  shared: AttemptShared & DelegationCount,
  worker: Delegator,
  delegation: Delegation,
): Promise<string> {
  const { agent } = worker;
  const { tools: _taskTools, ...task } = shared.task;
  const prompt = delegatedPrompt(delegation.request, delegation.context);
  const session = openAgentSession(run, shared, {
    agent,
    prompt,
    scope: worker.scope,
    tools: workTools(run, shared, worker, agentTools(run.request, agent, task)),
    uncached: delegationToolNames,
  });
  const result = await runAgentLoop({
    ...session.loop,
    responseSchema: undefined,
    messages: [
      { role: 'system', content: systemPrompt(agent) },
      { role: 'user', content: prompt },
    ],
  });
  await session.step(result.answer, null, null, result.answer);
  return result.answer;
}

/** The crew's agents but `agent` (and but a hierarchical crew's manager, which is no agent of the crew). */
export function othersThan(run: RunContext, agent: Pick<AgentDefinition, 'name'>): AgentDefinition[] {
  const { crew, inputs } = run.request;
  return [...crew.agents.values()]
    .filter((candidate) => candidate.name !== agent.name && candidate.name !== crew.managerAgent)
    .map((candidate) => renderAgent(candidate, inputs));
}

/** The request a coworker works on: crewAI's delegated task, whose expected output is an answer to the asker. */
function delegatedPrompt(request: string, context: string): string {
  const sections = [
    `Current task: ${defuse(request)}`,
    'Expected output: Your best answer to the coworker who asked you this, taking the context they shared into account.',
  ];
  if (context.trim() !== '') sections.push(`The context you are working with:\n${defuse(context)}`);
  sections.push('When you have what you need, reply with your final answer.');
  return sections.join('\n\n');
}

/** What `input` lacks of the text arguments `keys` (crewAI's `co_worker` stands for `coworker`), or undefined. */
function missingText(input: unknown, keys: readonly string[]): string | undefined {
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const missing = keys.filter(
    (key) => typeof args[key] !== 'string' && !(key === 'coworker' && typeof args.co_worker === 'string'),
  );
  return missing.length === 0 ? undefined : `${missing.join(', ')} must be given as text`;
}

/** crewAI matches coworkers ignoring case, quotes and runs of whitespace. */
function comparable(name: string): string {
  return name.split(/\s+/).filter(Boolean).join(' ').replaceAll('"', '').toLowerCase();
}

/** The coworker argument as crewAI accepts it: `coworker` or `co_worker`, the first of a "[a, b]" list. */
function coworkerArgument(args: Record<string, unknown>): string {
  const raw = args.coworker ?? args.co_worker;
  const text = typeof raw === 'string' ? raw.trim() : '';
  return text.startsWith('[') && text.endsWith(']') ? (text.slice(1, -1).split(',')[0] ?? '') : text;
}
