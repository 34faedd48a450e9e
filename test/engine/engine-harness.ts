import { afterEach, beforeEach } from 'vitest';
import type { AgentDefinition, CrewDefinition, CrewInputs, TaskDefinition } from '../../src/domain/crew.ts';
import type { EngineEvent } from '../../src/domain/events.ts';
import { runCrew } from '../../src/engine/crew-process.ts';
import type { OutputFiles } from '../../src/engine/output-files.ts';
import type { RateLimiter } from '../../src/engine/rate-limiter.ts';
import type { Timers } from '../../src/engine/timers.ts';
import type { Checkpoint, RunOutcome } from '../../src/engine/run-request.ts';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import type { Tool } from '../../src/engine/tool.ts';
import type { Guardrail } from '../../src/engine/guardrail.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import type { RetryOptions } from '../../src/llm/retrying-model.ts';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import type { FakeOpenAIServer, RecordedRequest } from '../support/fake-openai-server.ts';

/** The model every test crew uses; it reaches the fake server through OPENAI_BASE_URL. */
export const testModel = 'openai/fake-model';

export function agent(name: string, overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    name,
    role: `${name} role`,
    goal: `${name} goal`,
    backstory: `${name} backstory`,
    tools: [],
    maxIter: 20,
    allowDelegation: false,
    verbose: false,
    ...overrides,
  };
}

export function task(
  name: string,
  agentName: string,
  overrides: Partial<TaskDefinition> = {},
): TaskDefinition {
  return {
    name,
    description: `Do ${name}`,
    expectedOutput: `The ${name} result`,
    agent: agentName,
    humanInput: false,
    ...overrides,
  };
}

export function crew(
  agents: readonly AgentDefinition[],
  tasks: readonly TaskDefinition[],
  overrides: Partial<CrewDefinition> = {},
): CrewDefinition {
  return {
    name: 'test crew',
    process: 'sequential',
    llm: { model: testModel },
    agents: new Map(agents.map((definition) => [definition.name, definition])),
    tasks,
    requiredInputs: [],
    ...overrides,
  };
}

export interface RunOptions {
  readonly inputs?: CrewInputs;
  readonly checkpoint?: Checkpoint;
  readonly tools?: readonly Tool[];
  readonly guardrails?: readonly Guardrail[];
  readonly executionId?: string;
  readonly signal?: AbortSignal;
  readonly defaultModel?: string;
  readonly limiter?: RateLimiter;
  readonly onEvent?: (event: EngineEvent) => void | Promise<void>;
  readonly outputFiles?: OutputFiles;
  readonly clock?: () => Date;
  readonly timers?: Timers;
}

export interface EngineHarness {
  readonly fake: FakeOpenAIServer;
  /** Every event of every run, in order. */
  readonly events: EngineEvent[];
  run(definition: CrewDefinition, options?: RunOptions): Promise<RunOutcome>;
  close(): Promise<void>;
}

/** A fake OpenAI server and the real model resolver pointed at it; retries are quick so failures are fast. */
export async function startEngineHarness(
  retry: RetryOptions = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 },
) {
  const fake = await startFakeOpenAI();
  const models = createModelResolver({
    env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test' },
    baseDir: import.meta.dirname,
    timeoutMs: 10_000,
    retry,
  });
  const events: EngineEvent[] = [];
  const harness: EngineHarness = {
    fake,
    events,
    run: (definition, options = {}) =>
      runCrew({
        executionId: options.executionId ?? 'execution-1',
        crew: definition,
        inputs: options.inputs ?? {},
        checkpoint: options.checkpoint ?? { outputs: [], feedback: [] },
        models,
        tools: toolRegistryOf(options.tools ?? [], options.guardrails),
        defaultModel: options.defaultModel,
        limiter: options.limiter,
        outputFiles: options.outputFiles,
        clock: options.clock,
        timers: options.timers,
        signal: options.signal ?? new AbortController().signal,
        onEvent: async (event) => {
          events.push(event);
          await options.onEvent?.(event);
        },
      }),
    close: () => fake.close(),
  };
  return harness;
}

/**
 * The harness of every test in the calling file: started before each test and closed after it. Its members reach
 * the harness of the test that is running.
 */
export function engineHarnessPerTest(): EngineHarness {
  let current: EngineHarness | undefined;
  beforeEach(async () => {
    current = await startEngineHarness();
  });
  afterEach(() => current?.close());
  const now = (): EngineHarness => {
    if (current === undefined) throw new Error('the engine harness runs only inside a test');
    return current;
  };
  return {
    get fake() {
      return now().fake;
    },
    get events() {
      return now().events;
    },
    run: (definition, options) => now().run(definition, options),
    close: () => now().close(),
  };
}

interface SentMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The chat completion requests the fake received, in order. */
export function chatRequests(fake: FakeOpenAIServer): RecordedRequest[] {
  return fake.requests.filter((request) => request.path === '/v1/chat/completions');
}

export function messagesOf(request: RecordedRequest): SentMessage[] {
  return request.body.messages as SentMessage[];
}

export function systemText(request: RecordedRequest): string {
  return messagesOf(request)
    .filter((message) => message.role === 'system')
    .map((message) => textOf(message.content))
    .join('\n');
}

/** The first user message: the task prompt. */
export function taskText(request: RecordedRequest): string {
  return textOf(messagesOf(request).find((message) => message.role === 'user')?.content);
}

export function lastMessage(request: RecordedRequest): SentMessage {
  return messagesOf(request).at(-1)!;
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}

export function eventTypes(events: readonly EngineEvent[]): string[] {
  return events.map((event) =>
    event.type === 'step-end' ? `step-end:${event.step.tool ?? 'final'}` : event.type,
  );
}
