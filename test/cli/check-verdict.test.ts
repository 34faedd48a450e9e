import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { unreachableUrl } from '../support/mcp-http-server.ts';
import { runCrewd, type CommandResult } from './crewd-command.ts';

const env = { OPENAI_API_KEY: 'sk-test' };

const agent = (extra: readonly string[] = []): string =>
  ['writer:', '  role: Writer', '  goal: Write about {topic}', '  backstory: You write.', ...extra].join(
    '\n',
  );
const task = (extra: readonly string[] = []): string =>
  [
    'post:',
    '  description: Write a post about {topic}.',
    '  expected_output: A post.',
    '  agent: writer',
    ...extra,
  ].join('\n');

/** A crew written where users keep crews, outside any project: crew.yaml, agents.yaml, tasks.yaml. */
function crewOf(files: { crew?: readonly string[]; agents?: string; tasks?: string }): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'crewd-verdict-')), 'crew');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'crew.yaml'),
    ['name: verdict-crew', ...(files.crew ?? ['llm: openai/gpt-4o-mini'])].join('\n'),
  );
  writeFileSync(join(dir, 'agents.yaml'), files.agents ?? agent());
  writeFileSync(join(dir, 'tasks.yaml'), files.tasks ?? task());
  return dir;
}

/** The titles of the report's closing lists whose every item keeps crewd from running the crew as written. */
const problemTitles = [
  'Not honoured (left out when run with --allow-partial):',
  'Tool sources that cannot be used (serve and run start without them only with --allow-partial):',
  'Stops the crew from starting:',
];

/** The closing lists of a report, by title, with their items. */
function sections(report: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of report.split('\n')) {
    if (line.endsWith(':') && !line.startsWith(' ')) {
      current = [];
      found.set(line, current);
    } else if (line.startsWith('  - ') && current !== undefined) current.push(line.slice(4));
    else if (!line.startsWith(' ')) current = undefined;
  }
  return found;
}

/**
 * What every report must keep: whatever it lists as left out, unavailable or missing, its closing verdict and exit
 * code say the crew does not run as written, with at least as many problems as its lists hold.
 */
function expectVerdictAgrees(result: CommandResult): number {
  const lines = result.stdout.trimEnd().split('\n');
  const closing = lines.at(-1) ?? '';
  const found = sections(result.stdout);
  const listed = problemTitles.reduce((sum, title) => sum + (found.get(title)?.length ?? 0), 0);
  const missing = (found.get('Credentials:') ?? []).filter((item) => item.includes(': NOT SET ')).length;
  const marked = lines.filter((line) => line.includes('(not available)')).length;
  const counted = /^(\d+) problems?: crewd does not run this crew as written\.$/.exec(closing);
  if (listed + missing + marked === 0) {
    expect(closing).toBe('Nothing is left out: crewd runs this crew as written.');
    expect(result.code).toBe(0);
    return 0;
  }
  expect(closing).not.toContain('Nothing is left out');
  expect(counted, `verdict: ${closing}`).not.toBeNull();
  const problems = Number(counted![1]);
  expect(problems).toBeGreaterThanOrEqual(Math.max(listed, 1));
  expect(result.code).toBe(1);
  return problems;
}

let closedUrl: string;

beforeAll(async () => {
  closedUrl = await unreachableUrl();
});

describe("crewd check's verdict agrees with its lists", () => {
  it('says nothing is left out only for a crew with nothing listed, warnings aside', async () => {
    const result = await runCrewd(['check', crewOf({ agents: agent(['  colour: blue']) })], { env });

    expect(sections(result.stdout).get('Warnings:')).toEqual([
      'agents.yaml:line 5 (writer.colour): unknown key, ignored',
    ]);
    expect(expectVerdictAgrees(result)).toBe(0);
  });

  it('counts a part that is not honoured', async () => {
    const result = await runCrewd(['check', crewOf({ crew: ['llm: openai/gpt-4o-mini', 'memory: true'] })], {
      env,
    });

    expect(sections(result.stdout).get(problemTitles[0]!)).toHaveLength(1);
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts an MCP server that cannot be reached', async () => {
    const crew = crewOf({
      crew: ['llm: openai/gpt-4o-mini', 'mcp_servers:', '  docs:', `    url: ${closedUrl}`],
      agents: agent(['  mcps: [docs]']),
    });

    const result = await runCrewd(['check', crew], { env });

    expect(sections(result.stdout).get(problemTitles[1]!)).toEqual([
      `MCP server 'docs' (${closedUrl}) cannot be used: connection failed (ECONNREFUSED)`,
    ]);
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts an MCP server whose ${VAR} is not set, and lists the variable as not set', async () => {
    const crew = crewOf({
      crew: [
        'llm: openai/gpt-4o-mini',
        'mcp_servers:',
        '  files:',
        `    command: ${process.execPath}`,
        '    env:',
        '      NOTES_TOKEN: ${VERDICT_NOTES_TOKEN}',
      ],
      agents: agent(['  mcps: [files]']),
    });

    const result = await runCrewd(['check', crew], { env });

    const found = sections(result.stdout);
    expect(found.get(problemTitles[1]!)).toEqual([
      "MCP server 'files' cannot be used: environment variable 'VERDICT_NOTES_TOKEN' (in 'NOTES_TOKEN') is not set",
    ]);
    expect(found.get('Credentials:')).toContain(
      "VERDICT_NOTES_TOKEN: NOT SET (MCP server 'files' (env: NOTES_TOKEN))",
    );
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts a tool no source provides, marked where the agent lists it', async () => {
    const result = await runCrewd(['check', crewOf({ agents: agent(['  tools: [web_search]']) })], { env });

    expect(result.stdout).toContain('    tools: web_search (not available)\n');
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts a guardrail function no tools/ module defines', async () => {
    const result = await runCrewd(
      ['check', crewOf({ tasks: task(['  guardrails:', '    - function: under_200_words']) })],
      { env },
    );

    expect(result.stdout).toContain('     guardrails: under_200_words (not available)');
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts an agent without a model', async () => {
    const result = await runCrewd(['check', crewOf({ crew: [] })], { env });

    expect(result.stdout).toContain('    model: none (no llm and no MODEL variable)\n');
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts a model whose key is not set, which Credentials lists as not set', async () => {
    const result = await runCrewd(['check', crewOf({ crew: ['llm: anthropic/claude-sonnet-4-5'] })], { env });

    expect(sections(result.stdout).get('Credentials:')).toEqual([
      'ANTHROPIC_API_KEY: NOT SET (model anthropic/claude-sonnet-4-5)',
    ]);
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts a function_calling_llm that serve would refuse', async () => {
    const result = await runCrewd(
      ['check', crewOf({ agents: agent(['  function_calling_llm: nowhere/tool-model']) })],
      { env },
    );

    expect(sections(result.stdout).get(problemTitles[2]!)?.[0]).toMatch(
      /^agent writer's function_calling_llm: model "nowhere\/tool-model" has an unknown provider prefix/,
    );
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts a hierarchical crew without a manager, and a manager_llm that cannot be resolved', async () => {
    const unled = await runCrewd(
      ['check', crewOf({ crew: ['llm: openai/gpt-4o-mini', 'process: hierarchical'] })],
      { env },
    );
    const keyless = await runCrewd(
      [
        'check',
        crewOf({
          crew: ['llm: openai/gpt-4o-mini', 'process: hierarchical', 'manager_llm: gemini/gemini-2.0-flash'],
        }),
      ],
      { env },
    );

    expect(expectVerdictAgrees(unled)).toBe(1);
    expect(sections(keyless.stdout).get(problemTitles[2]!)).toEqual([
      'the manager: model "gemini/gemini-2.0-flash" needs GEMINI_API_KEY (or GOOGLE_API_KEY)',
    ]);
    expect(expectVerdictAgrees(keyless)).toBe(1);
  });

  it("counts an agent's mcps naming a server crewd does not know", async () => {
    const result = await runCrewd(['check', crewOf({ agents: agent(['  mcps: [archive]']) })], { env });

    expect(result.stdout).toContain('    mcps: archive (not available)\n');
    expect(expectVerdictAgrees(result)).toBe(1);
  });

  it('counts SerperDevTool without SERPER_API_KEY, and not once the key is set', async () => {
    const crew = crewOf({ agents: agent(['  tools: [SerperDevTool]']) });

    const without = await runCrewd(['check', crew], { env });
    const withKey = await runCrewd(['check', crew], { env: { ...env, SERPER_API_KEY: 'serper-secret' } });

    expect(sections(without.stdout).get('Credentials:')).toContain('SERPER_API_KEY: NOT SET (SerperDevTool)');
    expect(expectVerdictAgrees(without)).toBe(1);
    expect(sections(withKey.stdout).get('Credentials:')).toContain(
      'SERPER_API_KEY: set in the environment (SerperDevTool)',
    );
    expect(withKey.stdout).not.toContain('serper-secret');
    expect(expectVerdictAgrees(withKey)).toBe(0);
  });
});
