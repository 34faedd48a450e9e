import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CrewDefinition } from '../../src/domain/crew.ts';
import type { EngineEvent } from '../../src/domain/events.ts';
import type { Guardrail } from '../../src/engine/guardrail.ts';
import { runCrew } from '../../src/engine/crew-process.ts';
import type { Tool } from '../../src/engine/tool.ts';
import { toolRegistryOf } from '../../src/engine/tool.ts';
import { writeReplayFile } from '../../src/llm/replay-file.ts';
import { createModelResolver } from '../../src/llm/resolve-model.ts';
import { agent, crew, task } from './engine-harness.ts';

/** A crew directory whose replay file has no recordings at all: every request gets the stand-in. */
async function emptyRecording(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'crewd-stand-in-'));
  await writeReplayFile(join(dir, 'empty.replay.json'), { version: 1, entries: [] });
  return dir;
}

async function runOffline(definition: CrewDefinition, extras: { tools?: Tool[]; guardrails?: Guardrail[] }) {
  const dir = await emptyRecording();
  const events: EngineEvent[] = [];
  const outcome = runCrew({
    executionId: 'offline',
    crew: { ...definition, llm: { model: 'replay/empty.replay.json' } },
    inputs: {},
    checkpoint: { outputs: [], feedback: [] },
    models: createModelResolver({ env: {}, baseDir: dir }),
    tools: toolRegistryOf(extras.tools ?? [], extras.guardrails),
    defaultModel: undefined,
    signal: new AbortController().signal,
    onEvent: (event) => {
      events.push(event);
    },
  });
  return { outcome, events };
}

describe('the offline stand-in in the engine', () => {
  it('finishes a structured task of an agent with tools: no tool call, JSON that passes its schema and a model guardrail', async () => {
    let toolRuns = 0;
    const lookup: Tool = {
      name: 'lookup',
      description: 'Looks a fact up',
      inputSchema: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] },
      run: () => {
        toolRuns += 1;
        return Promise.resolve('a fact');
      },
    };
    const definition = crew(
      [agent('researcher', { tools: ['lookup'] })],
      [
        task('brief', 'researcher', {
          outputJson: {
            type: 'object',
            properties: { title: { type: 'string' }, points: { type: 'array', items: { type: 'string' } } },
            required: ['title', 'points'],
          },
          guardrails: [{ kind: 'llm', description: 'The brief must be about tide pools' }],
        }),
      ],
    );

    const { outcome, events } = await runOffline(definition, { tools: [lookup] });
    const result = await outcome;

    expect(result.kind).toBe('completed');
    const output = result.kind === 'completed' ? result.outputs[0]! : undefined;
    expect(output?.outputJson).toEqual({
      title: expect.stringMatching(/^Offline stand-in answer: no model wrote this\./),
      points: ['Offline stand-in answer (points[0])'],
    });
    expect(toolRuns).toBe(0);
    expect(events.filter((event) => event.type === 'guardrail-end')).toEqual([
      expect.objectContaining({ success: true }),
    ]);
  });

  it('fails a task whose guardrail function rejects every stand-in once its retries are spent, never looping', async () => {
    let checks = 0;
    const rejectsAll: Guardrail = {
      name: 'mentions_crabs',
      check: () => {
        checks += 1;
        return Promise.resolve({ success: false, error: 'The answer must mention crabs' });
      },
    };
    const definition = crew(
      [agent('writer')],
      [
        task('write', 'writer', {
          guardrails: [{ kind: 'function', name: 'mentions_crabs' }],
          guardrailMaxRetries: 2,
        }),
      ],
    );

    const { outcome } = await runOffline(definition, { guardrails: [rejectsAll] });

    await expect(outcome).rejects.toMatchObject({
      code: 'TASK_FAILED',
      message: expect.stringContaining(
        'did not pass after 2 retries. Last feedback: The answer must mention crabs',
      ),
    });
    expect(checks).toBe(3);
  });
});
