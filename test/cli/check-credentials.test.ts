import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unreachableUrl } from '../support/mcp-http-server.ts';
import { userCrew } from '../support/user-crew.ts';
import { exampleCrew, runCrewd } from './crewd-command.ts';

/** The lines of the report's Credentials list. */
function credentialLines(report: string): string[] {
  const start = report.indexOf('\nCredentials:\n');
  if (start === -1) return [];
  const lines: string[] = [];
  for (const line of report.slice(start + '\nCredentials:\n'.length).split('\n')) {
    if (!line.startsWith('  - ')) break;
    lines.push(line.slice(4));
  }
  return lines;
}

describe('crewd check and credentials', () => {
  it("lists each credential the crew needs and where it is set, from the environment or the project's .env, never its value", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'crewd-credentials-')), 'crew');
    mkdirSync(dir);
    const searchUrl = await unreachableUrl();
    writeFileSync(
      join(dir, 'crew.yaml'),
      [
        'name: credential-crew',
        'llm: openai/gpt-4o-mini',
        'process: hierarchical',
        'manager_llm: gemini/gemini-2.0-flash',
        'mcp_servers:',
        '  search:',
        `    url: ${searchUrl}`,
        '    headers:',
        '      Authorization: Bearer ${SEARCH_TOKEN}',
        '      X-Team: ${SEARCH_TEAM}',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'agents.yaml'),
      [
        'researcher:',
        '  role: Researcher',
        '  goal: Find out about {topic}',
        '  backstory: You search.',
        '  tools: [SerperDevTool]',
        '  function_calling_llm: anthropic/claude-sonnet-4-5',
        'writer:',
        '  role: Writer',
        '  goal: Write about {topic}',
        '  backstory: You write.',
        '  llm: gpt-4o',
        '  mcps: [search]',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tasks.yaml'),
      ['post:', '  description: Write a post about {topic}.', '  expected_output: A post.'].join('\n'),
    );
    writeFileSync(join(dir, '.env'), 'ANTHROPIC_API_KEY=sk-ant-from-dotenv\nSEARCH_TEAM=team-from-dotenv\n');

    const result = await runCrewd(['check', dir], {
      env: { OPENAI_API_KEY: 'sk-openai-from-env', SERPER_API_KEY: 'serper-from-env' },
    });

    expect(credentialLines(result.stdout)).toEqual([
      'OPENAI_API_KEY: set in the environment (models openai/gpt-4o-mini, gpt-4o)',
      "ANTHROPIC_API_KEY: set in the project's .env (model anthropic/claude-sonnet-4-5)",
      'GEMINI_API_KEY (or GOOGLE_API_KEY): NOT SET (model gemini/gemini-2.0-flash)',
      'SERPER_API_KEY: set in the environment (SerperDevTool)',
      "SEARCH_TOKEN: NOT SET (MCP server 'search' (headers: Authorization))",
      "SEARCH_TEAM: set in the project's .env (MCP server 'search' (headers: X-Team))",
    ]);
    for (const secret of [
      'sk-openai-from-env',
      'sk-ant-from-dotenv',
      'serper-from-env',
      'team-from-dotenv',
    ]) {
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
    }
    // The missing key stops the manager; the missing variable its server: each counted once.
    expect(result.stdout).toContain(
      '  - the manager: model "gemini/gemini-2.0-flash" needs GEMINI_API_KEY (or GOOGLE_API_KEY)\n',
    );
    expect(result.stdout).toContain(
      `  - MCP server 'search' (${searchUrl}) cannot be used: environment variable 'SEARCH_TOKEN' (in 'Authorization') is not set\n`,
    );
    expect(result.stdout).toContain('2 problems: crewd does not run this crew as written.');
    expect(result.code).toBe(1);
  });

  it('lists none for a crew of replay models', async () => {
    const result = await runCrewd(['check', userCrew(exampleCrew)]);

    expect(result.stdout).not.toContain('Credentials:');
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.');
    expect(result.code).toBe(0);
  });
});
