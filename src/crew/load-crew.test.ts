import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCrew } from './load-crew.ts';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../test/fixtures/crews/${name}`, import.meta.url));
const exampleCrew = fileURLToPath(new URL('../../examples/research-crew', import.meta.url));

async function load(dir: string) {
  const warnings: string[] = [];
  const crew = await loadCrew(dir, { warn: (message) => warnings.push(message) });
  return { crew, warnings };
}

describe('loadCrew', () => {
  it('loads the bundled example crew with its tasks in file order', async () => {
    const { crew, warnings } = await load(exampleCrew);

    expect(warnings).toEqual([]);
    expect(crew.name).toBe('research-crew');
    expect(crew.process).toBe('sequential');
    expect(crew.llm).toEqual({ model: 'replay/research-crew.replay.json' });
    expect([...crew.agents.keys()]).toEqual(['researcher', 'writer']);
    expect(crew.tasks.map((task) => [task.name, task.agent, task.humanInput, task.context])).toEqual([
      ['research_task', 'researcher', false, undefined],
      ['outline_task', 'writer', true, ['research_task']],
      ['report_task', 'writer', false, undefined],
    ]);
    expect(crew.requiredInputs).toEqual(['topic', 'current_year']);
  });

  it('keeps file order for names that look like numbers', async () => {
    const { crew } = await load(fixture('number-names'));

    expect([...crew.agents.keys()]).toEqual(['20', '3']);
    expect(crew.tasks.map((task) => task.name)).toEqual(['3', '1']);
    expect(crew.tasks[1]?.context).toEqual(['3']);
    expect(crew.requiredInputs).toEqual(['late', 'early']);
  });

  it('trims the newline that folded YAML scalars end with', async () => {
    const { crew } = await load(exampleCrew);

    expect(crew.agents.get('researcher')?.role).toBe('{topic} Senior Data Researcher');
    expect(crew.tasks[0]?.description).not.toMatch(/\s$/);
  });

  it('finds the config files of a crewAI project root under src/<package>/config', async () => {
    const { crew } = await load(fixture('project-root'));

    expect(crew.name).toBe('latest-ai');
    expect([...crew.agents.keys()]).toEqual(['researcher', 'reporting_analyst']);
    expect(crew.tasks.map((task) => task.name)).toEqual(['research_task', 'reporting_task']);
    expect(crew.requiredInputs).toEqual(['topic', 'current_year']);
  });

  it('reads a crew.yaml that sits beside the config files of a crewAI project', async () => {
    const { crew } = await load(fixture('project-config-crew-yaml'));

    expect(crew.name).toBe('beside-the-config');
    expect(crew.process).toBe('hierarchical');
    expect(crew.managerLlm).toEqual({ model: 'openai/gpt-4o' });
  });

  it('lets a task of a hierarchical crew leave its agent to the manager', async () => {
    const { crew, warnings } = await load(fixture('managed-task'));

    expect(warnings).toEqual([]);
    expect(crew.process).toBe('hierarchical');
    const [managed, assigned] = crew.tasks;
    expect(managed?.name).toBe('answer_question');
    expect(managed).not.toHaveProperty('agent');
    expect(assigned?.agent).toBe('support');
  });

  it('applies the defaults when only the required keys are written', async () => {
    const { crew, warnings } = await load(fixture('defaults'));

    expect(warnings).toEqual([]);
    expect(crew.name).toBe('defaults');
    expect(crew.process).toBe('sequential');
    expect(crew.llm).toBeUndefined();
    expect(crew.managerLlm).toBeUndefined();
    expect(crew.agents.get('writer')).toEqual({
      name: 'writer',
      role: 'Writer',
      goal: 'Write clearly',
      backstory: 'You write for busy readers.',
      tools: [],
      mcps: [],
      maxIter: 20,
      allowDelegation: false,
      verbose: false,
    });
    expect(crew.tasks).toEqual([
      {
        name: 'first_task',
        description: 'Draft a note.',
        expectedOutput: 'A short note.',
        agent: 'writer',
        humanInput: false,
      },
      {
        name: 'second_task',
        description: 'Polish the note.',
        expectedOutput: 'The polished note.',
        agent: 'writer',
        humanInput: false,
      },
    ]);
    expect(crew.tasks[1]).not.toHaveProperty('context');
    expect(crew.requiredInputs).toEqual([]);
  });

  it('keeps every optional key, an empty context and output_json as written', async () => {
    const { crew } = await load(fixture('all-fields'));

    expect(crew).toMatchObject({
      name: 'all-fields',
      process: 'hierarchical',
      llm: { model: 'openai/gpt-4o-mini' },
      managerLlm: { model: 'anthropic/claude-sonnet-4-5' },
    });
    expect(crew.agents.get('analyst')).toMatchObject({
      llm: { model: 'openai/gpt-4o' },
      tools: ['web_search', 'calculator'],
      maxIter: 5,
      maxRpm: 30,
      allowDelegation: true,
      verbose: true,
    });
    expect(crew.tasks[0]?.context).toEqual([]);
    expect(crew.tasks[1]).toMatchObject({
      context: ['gather_task'],
      humanInput: true,
      tools: ['calculator'],
      outputJson: {
        type: 'object',
        properties: { total: { type: 'number' } },
        required: ['total'],
      },
    });
  });

  it("reads crew.yaml's mcp_servers and an agent's mcps and cache", async () => {
    const dir = fixture('mcp-servers');
    const { crew } = await load(dir);

    expect(crew.mcpServers).toEqual(
      new Map([
        [
          'files',
          {
            kind: 'stdio',
            command: 'node',
            args: ['server.mjs', '--root', 'data'],
            env: { NOTES_TOKEN: '${NOTES_TOKEN}' },
            cwd: join(dir, 'servers/files'),
            timeoutMs: 2500,
          },
        ],
        [
          'search',
          {
            kind: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer ${SEARCH_TOKEN}' },
          },
        ],
      ]),
    );
    expect(crew.agents.get('researcher')).toMatchObject({
      tools: ['files.read_note'],
      mcps: ['search', 'https://tools.example.com/mcp#lookup'],
      cache: false,
    });
  });

  it('reads llm as crewAI writes it: a name, or a mapping with the call settings', async () => {
    const { crew, warnings } = await load(fixture('model-settings'));

    expect(crew.llm).toEqual({ model: 'gemini/gemini-2.0-flash' });
    expect(crew.functionCallingLlm).toEqual({ model: 'groq/llama-3.3-70b-versatile', temperature: 0 });
    expect(crew.agents.get('researcher')).toMatchObject({
      llm: {
        model: 'ollama/llama3.1',
        temperature: 0.2,
        maxTokens: 800,
        topP: 0.9,
        baseUrl: 'http://localhost:11434',
      },
      functionCallingLlm: { model: 'gpt-4o-mini' },
    });
    // crewAI's other names for the same settings: max_completion_tokens and api_base.
    expect(crew.agents.get('writer')?.llm).toEqual({
      model: 'openai/my-model',
      maxTokens: 300,
      baseUrl: 'http://127.0.0.1:8000/v1',
      apiKey: 'sk-local',
    });
    expect(warnings).toEqual(['agents.yaml:line 11 (researcher.llm.seed): unknown key, ignored']);
  });

  it('does not report a crewAI setting that asks for nothing: false, null or an empty list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crewd-no-request-'));
    writeFileSync(join(dir, 'crew.yaml'), 'memory: false\nplanning: false\n');
    writeFileSync(
      join(dir, 'agents.yaml'),
      'writer:\n  role: Writer\n  goal: Write\n  backstory: Writes.\n  memory: false\n  reasoning: false\n  knowledge_sources: []\n  embedder: ~\n',
    );
    writeFileSync(
      join(dir, 'tasks.yaml'),
      'write:\n  description: Write.\n  expected_output: Text.\n  agent: writer\n  async_execution: false\n',
    );
    const dropped: string[] = [];

    await loadCrew(dir, { warn: (message) => dropped.push(message), drop: (message) => dropped.push(message) });

    expect(dropped).toEqual([]);
  });

  it('tells crewAI keys crewd does not act on yet from unknown keys, each with file, key and line', async () => {
    const warnings: string[] = [];
    const dropped: string[] = [];
    const crew = await loadCrew(fixture('unknown-keys'), {
      warn: (message) => warnings.push(message),
      drop: (message) => dropped.push(message),
    });

    expect(warnings).toEqual([
      'agents.yaml:line 5 (writer.favourite_colour): unknown key, ignored',
    ]);
    expect(dropped).toEqual([
      'crew.yaml:line 2 (memory): crewd does not do memory yet: agents remember nothing beyond each task and its context',
      'tasks.yaml:line 5 (write_task.async_execution): crewd does not do async_execution yet: the task runs after the one before it, not at the same time',
    ]);
    expect(crew.tasks[0]).not.toHaveProperty('output_file');
    expect(crew.tasks[0]?.outputFile).toBe('report.md');
    expect(crew.agents.get('writer')).not.toHaveProperty('favourite_colour');
  });
});
