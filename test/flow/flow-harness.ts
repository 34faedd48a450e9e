import { afterEach, beforeEach } from 'vitest';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import { flowFromText } from '../../src/flow/load-flow.ts';
import type { FlowDefinition } from '../../src/flow/flow-definition.ts';
import type { FlowEvent } from '../../src/flow/flow-run.ts';
import { MemoryFlowJournal } from '../../src/flow/memory-flow-journal.ts';
import { runFlow } from '../../src/flow/run-flow.ts';
import type { FlowOutcome } from '../../src/flow/run-flow.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import type { FakeOpenAIServer } from '../support/fake-openai-server.ts';

/** The model flows in tests name; it reaches the fake server through OPENAI_BASE_URL. */
export const testModel = 'openai/fake-model';

/** Loads flow YAML, collecting what the loader reports. */
export function flow(yaml: string, warnings: string[] = []): FlowDefinition {
  return flowFromText(yaml, { warn: (message) => warnings.push(message) });
}

export interface FlowHarness {
  readonly fake: FakeOpenAIServer;
  /** Methods in the order they started (replays not counted). */
  readonly started: string[];
  run(
    definition: FlowDefinition,
    options?: {
      inputs?: Record<string, unknown>;
      journal?: MemoryFlowJournal;
      feedback?: string;
      rejected?: boolean;
    },
  ): Promise<FlowOutcome>;
}

/** A fake OpenAI server on loopback and the real model resolver pointed at it, fresh for each test. */
export function useFlowHarness(): FlowHarness {
  let fake: FakeOpenAIServer | undefined;
  const started: string[] = [];
  beforeEach(async () => {
    fake = await startFakeOpenAI();
    started.length = 0;
  });
  afterEach(async () => {
    await fake?.close();
  });
  return {
    get fake() {
      if (fake === undefined) throw new Error('the harness starts in beforeEach');
      return fake;
    },
    started,
    run(definition, options = {}) {
      if (fake === undefined) throw new Error('the harness starts in beforeEach');
      const models = createModelResolver({
        env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test' },
        baseDir: import.meta.dirname,
        timeoutMs: 10_000,
        retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 2 },
      });
      let next = 0;
      return runFlow({
        definition,
        journal: options.journal ?? new MemoryFlowJournal(),
        dependencies: {
          models,
          tools: toolRegistryOf([]),
          defaultModel: testModel,
          executionId: 'flow-run-1',
          newId: () => `state-${(next += 1)}`,
          clock: () => new Date('2026-01-02T03:04:05Z'),
        },
        ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
        ...(options.feedback === undefined ? {} : { feedback: options.feedback }),
        ...(options.rejected === undefined ? {} : { rejected: options.rejected }),
        onEvent: (event: FlowEvent) => {
          if (event.type === 'method-start') started.push(event.method);
        },
      });
    },
  };
}
