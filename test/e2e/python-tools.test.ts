import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withProjectEnv } from '../../src/crew/project-env.ts';
import type { RunningServer } from '../../src/main.ts';
import { apiClient, spawnCrewd, startCrewd } from '../support/crewd.ts';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { toolResultText, userText } from '../support/model-requests.ts';
import { movableClock } from '../support/movable-clock.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';
import { runCrewd } from '../cli/crewd-command.ts';

const project = resolve(import.meta.dirname, '../fixtures/crewai-projects/tool_bench');

/** crewd's own secrets, set in its environment: none may reach the project's Python. */
const crewdSecrets = {
  CREWD_WEBHOOK_SECRET: 'whsec_c2VjcmV0LXRoYXQtc3RheXMtd2l0aC1jcmV3ZA==',
  CREWD_DATABASE_URL: 'postgres://crewd:database-password@127.0.0.1:5432/crewd',
};

let model: FakeOpenAIServer;
let executions = 0;

/**
 * The model calls the tool the topic names (`call <tool> <json arguments>`), then answers with the tool's result:
 * each execution says which tool it exercises, so executions never depend on one another.
 */
function callNamedTool(request: RecordedRequest) {
  const result = toolResultText(request);
  if (result !== undefined) return { content: `The tool said: ${result}` };
  const match = /call (\S+) (\{.*?\})/.exec(userText(request));
  if (match === null) return { content: 'No tool asked for.' };
  return { toolCalls: [{ name: match[1]!, arguments: JSON.parse(match[2]!) as unknown }] };
}

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: callNamedTool });
});

afterAll(async () => {
  await model.close();
});

/** crewd serving a copy of the project, with the environment `crewd serve` gives it (the project's .env beneath). */
async function serveProject(env: Readonly<Record<string, string>> = {}): Promise<RunningServer> {
  const dir = userCrew(project);
  const merged = await withProjectEnv(dir, {
    PATH: process.env.PATH ?? '',
    MODEL: 'openai/gpt-4o-mini',
    ...crewdSecrets,
    ...env,
  });
  return startCrewd({ crewDir: dir, modelUrl: model.url, env: merged as Record<string, string> });
}

/** Runs the crew once calling `tool` with `args`; the execution's end and the tool message the model got. */
async function callTool(
  crewd: RunningServer,
  tool: string,
  args: Record<string, unknown>,
  basePath = '',
): Promise<{ state: string; toolResult: string | undefined; offered: OfferedTool[]; topic: string }> {
  const api = apiClient(`${crewd.url}${basePath}`);
  // Numbered, so the requests of this execution are told apart from those of an earlier one with the same call.
  const topic = `call ${tool} ${JSON.stringify(args)} (execution ${++executions})`;
  const kickoff = await api.post('/kickoff', { inputs: { topic } });
  const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);
  const ours = model.requests.filter((request) => userText(request).includes(topic));
  const answered = ours.find((request) => toolResultText(request) !== undefined);
  return {
    state: done.body.state as string,
    toolResult: answered === undefined ? undefined : toolResultText(answered),
    offered: (ours[0]?.body.tools ?? []) as OfferedTool[],
    topic,
  };
}

interface OfferedTool {
  function: {
    name: string;
    description: string;
    parameters: { properties?: Record<string, { description?: string }>; required?: string[] };
  };
}

describe("a crewAI project's Python tools, in the project's Python (Pydantic 2)", () => {
  let crewd: RunningServer;

  beforeAll(async () => {
    crewd = await serveProject();
  });

  afterAll(async () => {
    await crewd.close();
  });

  it("offers each tool under crewAI's name with its description and argument schema, and runs a @tool function", async () => {
    const { state, toolResult, offered } = await callTool(crewd, 'fact_lookup', { topic: 'Lisbon' });

    expect(state).toBe('SUCCESS');
    expect(toolResult).toBe('Fact: Lisbon has 6 letters.');
    expect(offered.map((tool) => tool.function.name)).toEqual([
      'fact_lookup',
      'word_counter',
      'noisy_tool',
      'broken_tool',
      'slow_tool',
      'env_reader',
      'crewd_variables',
      'async_echo',
      'host_process',
    ]);
    const byName = new Map(offered.map((tool) => [tool.function.name, tool.function]));
    expect(byName.get('fact_lookup')!.description).toBe('Looks up one fact about a topic.');
    expect(byName.get('fact_lookup')!.parameters.required).toEqual(['topic']);
    expect(byName.get('word_counter')!.description).toBe('Counts the words of a text.');
    expect(byName.get('word_counter')!.parameters.properties!.text!.description).toBe(
      'The text whose words are counted',
    );
    expect(byName.get('async_echo')!.parameters.required).toEqual(['text']);
  });

  it("builds a BaseTool subclass with crew.py's positional and keyword arguments", async () => {
    const { toolResult } = await callTool(crewd, 'word_counter', { text: 'one two three four' });

    // WordCountTool("words", separator=" "): the unit is positional, the separator a keyword.
    expect(toolResult).toBe('4 words');
  });

  it('runs a BaseTool that only defines _arun', async () => {
    const { toolResult } = await callTool(crewd, 'async_echo', { text: 'hello' });

    expect(toolResult).toBe('echo: hello');
  });

  it('keeps the protocol whole when a tool prints to stdout, even a line shaped like an answer', async () => {
    const { state, toolResult } = await callTool(crewd, 'noisy_tool', { text: 'the report' });

    expect(state).toBe('SUCCESS');
    expect(toolResult).toBe('quiet result for the report');
  });

  it('reports an exception to the model as Error: with its type and message', async () => {
    const { state, toolResult } = await callTool(crewd, 'broken_tool', { reason: 'no access' });

    expect(state).toBe('SUCCESS');
    expect(toolResult).toBe('Error: ValueError: cannot do that: no access');
  });

  it("gives the tools the project's .env and none of crewd's own variables", async () => {
    const fromDotEnv = await callTool(crewd, 'env_reader', { name: 'TOOL_BENCH_GREETING' });
    const crewdOwn = await callTool(crewd, 'crewd_variables', {});
    const orgToken = await callTool(crewd, 'env_reader', { name: 'CREWD_ORG_TOKEN' });

    expect(fromDotEnv.toolResult).toBe("hello from the project's .env");
    expect(crewdOwn.toolResult).toBe('none');
    expect(orgToken.toolResult).toBe('<unset>');
  });

  it('says on /health/ready that the Python tools are up', async () => {
    const ready = await apiClient(crewd.url).get('/health/ready');

    expect(ready.status).toBe(200);
    expect(ready.body.tools).toContainEqual({ source: 'Python tools', up: true });
  });

  it('starts the host again after it dies, and the next call runs', async () => {
    const before = await callTool(crewd, 'host_process', {});
    const pid = Number(before.toolResult);
    process.kill(pid, 'SIGKILL');
    // A call sent before crewd has seen the host die fails with it; the test is about the call after.
    await until(() => !isRunning(pid));
    const after = await callTool(crewd, 'host_process', {});

    expect(after.state).toBe('SUCCESS');
    expect(Number(after.toolResult)).toBeGreaterThan(0);
    expect(after.toolResult).not.toBe(before.toolResult);
  });
});

describe('a Python tool call past its time', () => {
  let crewd: RunningServer;

  beforeAll(async () => {
    crewd = await serveProject({ CREWD_PYTHON_TOOL_TIMEOUT: '2' });
  });

  afterAll(async () => {
    await crewd.close();
  });

  it('fails to the model with a message, and the next call runs on a new host', async () => {
    const before = await callTool(crewd, 'host_process', {});
    const hung = await callTool(crewd, 'slow_tool', { label: 'forever' });
    const after = await callTool(crewd, 'host_process', {});

    expect(hung.state).toBe('SUCCESS');
    expect(hung.toolResult).toBe('Error: the tool did not finish within 2 s.');
    // The host that ran the call that never ended was replaced: it is killed, not left running.
    expect(after.toolResult).not.toBe(before.toolResult);
    await until(() => !isRunning(Number(before.toolResult)));
  });
});

describe('Pydantic 1 (Debian’s Python)', () => {
  let crewd: RunningServer;

  beforeAll(async () => {
    crewd = await serveProject({ CREWD_PYTHON: '/usr/bin/python3' });
  });

  afterAll(async () => {
    await crewd.close();
  });

  it('derives the schemas and runs BaseTool and @tool tools', async () => {
    const counted = await callTool(crewd, 'word_counter', { text: 'a b c' });
    const fact = await callTool(crewd, 'fact_lookup', { topic: 'Porto' });
    const echoed = await callTool(crewd, 'async_echo', { text: 'v1' });

    expect(counted.toolResult).toBe('3 words');
    expect(fact.toolResult).toBe('Fact: Porto has 5 letters.');
    expect(echoed.toolResult).toBe('echo: v1');
    const counter = counted.offered.find((tool) => tool.function.name === 'word_counter')!;
    expect(counter.function.parameters.properties!.text!.description).toBe(
      'The text whose words are counted',
    );
    expect(counter.function.parameters.required).toEqual(['text']);
  });
});

describe("crewAI's own tools where the project's Python has crewai_tools", () => {
  let crewd: RunningServer;

  beforeAll(async () => {
    // A crewai_tools of the project's Python: its FileReadTool answers with what it was built with.
    const sitePackages = mkdtempSync(join(tmpdir(), 'crewd-site-packages-'));
    mkdirSync(join(sitePackages, 'crewai_tools'));
    writeFileSync(
      join(sitePackages, 'crewai_tools', '__init__.py'),
      [
        'from crewai.tools import BaseTool',
        '',
        '',
        'class FileReadTool(BaseTool):',
        '    name: str = "Read a file\'s content"',
        '    description: str = "Reads a file."',
        '    file_path: str = ""',
        '',
        '    def _run(self) -> str:',
        '        return f"crewai_tools read {self.file_path}"',
        '',
      ].join('\n'),
    );
    const dir = userCrew(resolve(import.meta.dirname, '../fixtures/crewai-projects/reading_room'));
    crewd = await startCrewd({
      crewDir: dir,
      modelUrl: model.url,
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: sitePackages, MODEL: 'openai/gpt-4o-mini' },
    });
  });

  afterAll(async () => {
    await crewd.close();
  });

  it("builds and runs them there, with crew.py's arguments, instead of crewd's built-in tools", async () => {
    const toolName = 'read_a_files_content';
    model.enqueue(
      { toolCalls: [{ name: toolName, arguments: {} }] },
      { content: 'First read.' },
      { toolCalls: [{ name: toolName, arguments: {} }] },
      { content: 'Second read.' },
    );
    const api = apiClient(crewd.url);
    const before = model.requests.length;
    const kickoff = await api.post('/kickoff', { inputs: { subject: 'the wing' } });
    const done = await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    const results = model.requests.slice(before).flatMap((request) => toolResultText(request) ?? []);
    expect(results).toEqual(['crewai_tools read notes/minutes.txt', 'crewai_tools read notes/budget.txt']);
  });
});

describe('after crewd is killed', () => {
  it('its Python tool host does not linger, even with a call that never ends', async () => {
    const dir = userCrew(project);
    const crewd = await spawnCrewd({
      crewDir: dir,
      modelUrl: model.url,
      env: { MODEL: 'openai/gpt-4o-mini', CREWD_PYTHON_TOOL_TIMEOUT: '3600' },
    });
    try {
      const topic = `call slow_tool {"label": "forever"} (execution ${++executions})`;
      await apiClient(crewd.url).post('/kickoff', { inputs: { topic } });
      await until(() => hostsOf(dir).length === 1);
      // The tool prints as it starts waiting; crewd logs what its tools print.
      await until(() => crewd.output().includes('waiting forever on forever'));
      crewd.child.kill('SIGKILL');
      await crewd.exited;

      await until(() => hostsOf(dir).length === 0);
    } finally {
      crewd.child.kill('SIGKILL');
    }
  });
});

/** The Python tool hosts running for the project at `dir`, by their command line. */
function hostsOf(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        return state !== 'Z' && command.includes('crewd_tool_host.py') && command.includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('an earlier version read back from the store', () => {
  it("runs its Python tools with the project's .venv while it exists, else the default interpreter", async () => {
    const dir = userCrew(project);
    // A virtual environment that says it ran: the real interpreter, started with a variable only it sets.
    mkdirSync(join(dir, '.venv/bin'), { recursive: true });
    writeFileSync(join(dir, '.venv/bin/python'), '#!/bin/sh\nVENV_MARK=from-the-venv exec python3 "$@"\n', {
      mode: 0o755,
    });
    const database = join(mkdtempSync(join(tmpdir(), 'crewd-venv-')), 'crewd.db');
    const env = (await withProjectEnv(dir, {
      PATH: process.env.PATH ?? '',
      MODEL: 'openai/gpt-4o-mini',
    })) as Record<string, string>;
    const clock = movableClock();
    const serve = () =>
      startCrewd({
        crewDir: dir,
        crews: [{ name: 'bench', dir }],
        modelUrl: model.url,
        database,
        env,
        clock: clock.now,
      });
    // Version 1 is kept; changed files make version 2, and the rollback to 1 has it read back from the store.
    await (await serve()).close();
    const tasksFile = join(dir, 'src/tool_bench/config/tasks.yaml');
    writeFileSync(tasksFile, readFileSync(tasksFile, 'utf8').replace('report what', 'report exactly what'));
    const crewd = await serve();
    try {
      const rolledBack = await runCrewd(['rollback', 'bench', '1', '--database', database]);
      expect(rolledBack.code).toBe(0);
      clock.advance(60_000);

      const inVenv = await callTool(crewd, 'env_reader', { name: 'VENV_MARK' }, '/crews/bench');
      expect(inVenv.state).toBe('SUCCESS');
      expect(inVenv.toolResult).toBe('from-the-venv');
      expect(requestsNaming(inVenv.topic, 'report exactly what')).toHaveLength(0);
    } finally {
      await crewd.close();
    }

    rmSync(join(dir, '.venv'), { recursive: true });
    const withoutVenv = await serve();
    try {
      const result = await callTool(withoutVenv, 'env_reader', { name: 'VENV_MARK' }, '/crews/bench');
      expect(result.state).toBe('SUCCESS');
      expect(result.toolResult).toBe('<unset>');
    } finally {
      await withoutVenv.close();
    }
  });
});

/** The model requests of the execution with this topic whose prompt holds `words`. */
function requestsNaming(topic: string, words: string): RecordedRequest[] {
  return model.requests.filter(
    (request) => userText(request).includes(topic) && userText(request).includes(words),
  );
}
