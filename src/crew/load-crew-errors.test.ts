import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CrewLoadError } from '../domain/errors.ts';
import { loadCrew } from './load-crew.ts';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../../test/fixtures/crews/${name}`, import.meta.url));

async function loadError(dir: string): Promise<CrewLoadError> {
  const error: unknown = await loadCrew(dir, { warn: () => undefined }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CrewLoadError);
  return error as CrewLoadError;
}

interface Case {
  readonly fixture: string;
  readonly file: string;
  readonly key?: string;
  readonly line?: number;
  readonly message: string;
}

const cases: readonly (readonly [string, Case])[] = [
  [
    'a missing agents.yaml',
    { fixture: 'missing-agents-file', file: 'agents.yaml', message: 'agents.yaml: file not found' },
  ],
  [
    'a missing tasks.yaml',
    { fixture: 'missing-tasks-file', file: 'tasks.yaml', message: 'tasks.yaml: file not found' },
  ],
  [
    'a directory without crew files',
    {
      fixture: 'no-crew-files',
      file: 'agents.yaml',
      message:
        'agents.yaml: file not found (looked in ., config/, src/<package>/config/ and src/<package>/crews/<crew>/config/)',
    },
  ],
  [
    'a YAML syntax error',
    {
      fixture: 'yaml-syntax-error',
      file: 'tasks.yaml',
      line: 6,
      message:
        'tasks.yaml:line 6: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]',
    },
  ],
  [
    'an MCP server with neither a command nor a url',
    {
      fixture: 'mcp-server-invalid',
      file: 'crew.yaml',
      key: 'mcp_servers.files',
      line: 2,
      message:
        'crew.yaml:line 2 (mcp_servers.files): must have either a command (with args, env, cwd, timeout) or a url (with headers, timeout)',
    },
  ],
  [
    'a value of the wrong type',
    {
      fixture: 'wrong-type',
      file: 'agents.yaml',
      key: 'writer.max_iter',
      line: 5,
      message: 'agents.yaml:line 5 (writer.max_iter): must be a whole number',
    },
  ],
  [
    'a model setting of the wrong type, inside the llm mapping',
    {
      fixture: 'model-bad-temperature',
      file: 'agents.yaml',
      key: 'writer.llm.temperature',
      line: 7,
      message: 'agents.yaml:line 7 (writer.llm.temperature): must be a number',
    },
  ],
  [
    'a missing required field, at the line of its entry',
    {
      fixture: 'missing-field',
      file: 'tasks.yaml',
      key: 'write_report.expected_output',
      line: 6,
      message: 'tasks.yaml:line 6 (write_report.expected_output): is required',
    },
  ],
  [
    'output_json naming a class when there is no crew.py to find it in',
    {
      fixture: 'output-json-not-object',
      file: 'tasks.yaml',
      key: 'write_task.output_json',
      line: 5,
      message:
        'tasks.yaml:line 5 (write_task.output_json): names the class "ReportModel", but the crew has no crew.py to find it in; give a JSON Schema object instead',
    },
  ],
  [
    'a process crewd does not know',
    {
      fixture: 'bad-process',
      file: 'crew.yaml',
      key: 'process',
      line: 2,
      message: 'crew.yaml:line 2 (process): must be "sequential" or "hierarchical"',
    },
  ],
  [
    'a budget that is not above 0',
    {
      fixture: 'bad-budget',
      file: 'crew.yaml',
      key: 'budget.tokens',
      line: 3,
      message: 'crew.yaml:line 3 (budget.tokens): must be at least 1',
    },
  ],
  [
    'a task naming a missing agent',
    {
      fixture: 'unknown-agent',
      file: 'tasks.yaml',
      key: 'write_report.agent',
      line: 9,
      message:
        'tasks.yaml:line 9 (write_report.agent): names agent "editor", which agents.yaml does not define',
    },
  ],
  [
    'a task without an agent in a sequential crew',
    {
      fixture: 'task-without-agent',
      file: 'tasks.yaml',
      key: 'answer_question.agent',
      line: 6,
      message:
        'tasks.yaml:line 6 (answer_question.agent): is required; only the tasks of a hierarchical crew may leave their agent to the manager',
    },
  ],
  [
    'a context naming a missing task',
    {
      fixture: 'context-missing-task',
      file: 'tasks.yaml',
      key: 'write_report.context[1]',
      line: 12,
      message:
        'tasks.yaml:line 12 (write_report.context[1]): names task "research_task", which is not defined',
    },
  ],
  [
    'a context naming a later task',
    {
      fixture: 'context-later-task',
      file: 'tasks.yaml',
      key: 'write_task.context[0]',
      line: 5,
      message:
        'tasks.yaml:line 5 (write_task.context[0]): names task "write_report", which runs later; context may only name earlier tasks',
    },
  ],
  [
    'a context naming the task itself',
    {
      fixture: 'context-self',
      file: 'tasks.yaml',
      key: 'write_report.context[0]',
      line: 11,
      message: 'tasks.yaml:line 11 (write_report.context[0]): a task cannot be its own context',
    },
  ],
  [
    'an empty tasks file',
    {
      fixture: 'empty-tasks',
      file: 'tasks.yaml',
      message: 'tasks.yaml: defines no tasks; the file is empty',
    },
  ],
  [
    'a tasks file that is a list instead of a mapping',
    {
      fixture: 'tasks-not-a-mapping',
      file: 'tasks.yaml',
      line: 1,
      message: 'tasks.yaml:line 1: must be a mapping of names to tasks',
    },
  ],
  [
    'a task defined twice',
    {
      fixture: 'duplicate-task',
      file: 'tasks.yaml',
      key: 'write_task',
      line: 6,
      message: 'tasks.yaml:line 6 (write_task): duplicate key "write_task"',
    },
  ],
  [
    'a field written twice in one agent',
    {
      fixture: 'duplicate-field',
      file: 'agents.yaml',
      key: 'writer.goal',
      line: 4,
      message: 'agents.yaml:line 4 (writer.goal): duplicate key "goal"',
    },
  ],
  [
    'an error in a crewAI project, naming the file from the project root',
    {
      fixture: 'project-root-invalid',
      file: 'src/bad_crew/config/tasks.yaml',
      key: 'write_task.agent',
      line: 4,
      message:
        'src/bad_crew/config/tasks.yaml:line 4 (write_task.agent): names agent "editor", which src/bad_crew/config/agents.yaml does not define',
    },
  ],
  [
    'a project root holding several crewAI packages',
    {
      fixture: 'ambiguous-project',
      file: 'src',
      message: 'src: holds several crews (first_crew, second_crew); choose one with --crew <name>',
    },
  ],
];

describe('loadCrew errors', () => {
  it.each(cases)('rejects %s, naming the file, key and line', async (_title, expected) => {
    const error = await loadError(fixture(expected.fixture));

    expect(error.message).toBe(expected.message);
    expect(error.code).toBe('CREW_INVALID');
    expect({ file: error.file, key: error.key, line: error.line }).toEqual({
      file: expected.file,
      key: expected.key,
      line: expected.line,
    });
  });

  it('rejects a crew directory that does not exist, naming it as given', async () => {
    const error = await loadError('test/fixtures/crews/no-such-crew');

    expect(error.message).toBe('test/fixtures/crews/no-such-crew: crew directory not found');
  });

  it('rejects a crew path that is a file', async () => {
    const error = await loadError(fixture('defaults/agents.yaml'));

    expect(error.message).toMatch(/agents\.yaml: is not a directory$/);
  });
});
