import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CrewLoadError } from '../domain/errors.ts';
import { loadCrew } from './load-crew.ts';

const fixture = fileURLToPath(
  new URL('../../test/fixtures/crewai-projects/trip_planner_jsonc', import.meta.url),
);

/** A copy of the JSONC fixture with one file's text changed. */
function changed(file: string, change: (text: string) => string): string {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'crewd-jsonc-')), 'project');
  cpSync(fixture, dir, { recursive: true });
  const target = path.join(dir, file);
  writeFileSync(target, change(readFileSync(target, 'utf8')));
  return dir;
}

async function loadError(dir: string): Promise<CrewLoadError> {
  const error: unknown = await loadCrew(dir, { warn: () => undefined }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CrewLoadError);
  return error as CrewLoadError;
}

describe('loading a JSONC crew', () => {
  it("reads crew.jsonc's tasks and each agents/<name>.jsonc with its settings, comments and trailing commas", async () => {
    const warnings: string[] = [];
    const crew = await loadCrew(fixture, { warn: (message) => warnings.push(message) });

    expect(crew.name).toBe('Trip Planner');
    expect([...crew.agents.values()].map((agent) => [agent.name, agent.llm?.model, agent.maxIter])).toEqual([
      ['scout', 'openai/gpt-4o-mini', 6],
      ['planner', 'openai/gpt-4o', 20],
    ]);
    expect(crew.tasks.map((task) => [task.name, task.agent, task.context])).toEqual([
      ['scout_task', 'scout', undefined],
      ['plan_task', 'planner', ['scout_task']],
    ]);
    expect(crew.requiredInputs).toEqual(['city', 'month']);
    expect(warnings).toEqual([]);
  });

  it('names the agent file, key and line of a bad setting', async () => {
    const dir = changed('agents/scout.jsonc', (text) => text.replace('"max_iter": 6', '"max_iter": 0'));

    const error = await loadError(dir);

    expect(error.message).toBe('agents/scout.jsonc:line 26 (max_iter): must be at least 1');
  });

  it('names the task and line of a task missing a required key', async () => {
    const dir = changed('crew.jsonc', (text) => text.replace(/"expected_output": "A plan[^\n]*\n/, ''));

    const error = await loadError(dir);

    expect(error.message).toBe('crew.jsonc:line 17 (plan_task.expected_output): is required');
  });

  it('lets a task of a hierarchical crew leave its agent to the manager, and refuses that in a sequential one', async () => {
    const withoutAgent = (text: string): string => text.replace('"agent": "planner",', '');
    const hierarchical = changed('crew.jsonc', (text) =>
      withoutAgent(text).replace(
        '"process": "sequential",',
        '"process": "hierarchical", "manager_llm": "openai/gpt-4o",',
      ),
    );

    const crew = await loadCrew(hierarchical, { warn: () => undefined });
    const error = await loadError(changed('crew.jsonc', withoutAgent));

    expect(crew.tasks.map((task) => task.agent)).toEqual(['scout', undefined]);
    expect(error.message).toBe(
      'crew.jsonc:line 17 (plan_task.agent): is required; only the tasks of a hierarchical crew may leave their agent to the manager',
    );
  });

  it('refuses an agent the crew lists without its file', async () => {
    const dir = changed('crew.jsonc', (text) =>
      text.replace('["scout", "planner"]', '["scout", "planner", "guide"]'),
    );

    const error = await loadError(dir);

    expect(error.message).toBe(
      'crew.jsonc:line 6 (agents): names agent "guide", but agents/guide.jsonc does not exist',
    );
  });

  it('says that default inputs are not used yet', async () => {
    const dir = changed('crew.jsonc', (text) => text.replace('"inputs": {}', '"inputs": {"city": "Lyon"}'));
    const warnings: string[] = [];

    await loadCrew(dir, { warn: (message) => warnings.push(message) });

    expect(warnings).toEqual([
      'crew.jsonc (inputs): crewd does not do default inputs yet: every input must be given at kickoff',
    ]);
  });
});
