import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  exampleCrew,
  exampleInputs,
  finished,
  runCrewd,
  spawnCrewd,
  tempDir,
  waitForOutput,
} from './crewd-command.ts';

describe('crewd serve', () => {
  it('refuses to start with one line naming a variable that is wrong', async () => {
    const result = await runCrewd(['serve', exampleCrew, '--port', '0'], {
      env: { CREWD_CONCURRENCY: 'abc' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^crewd: .*CREWD_CONCURRENCY.*\n$/);
  });

  it('refuses to start a crew whose agent names a tool that does not exist', async () => {
    const crew = join(import.meta.dirname, 'crews/unknown-tool');
    const result = await runCrewd(['serve', crew, '--port', '0', '--database', join(tempDir(), 'crewd.db')], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "crewd: Agent 'searcher' uses tool 'web_search', which no tool source provides: add tools/web_search.ts " +
        "(or .js) to the crew directory, use a built-in tool, or declare an MCP server in crew.yaml's mcp_servers and " +
        'name its tool as <server>.<tool>\n',
    );
  });

  it('refuses to start a crew whose agent names a model without its key, naming the agent, model and variable', async () => {
    const crew = join(import.meta.dirname, 'crews/model-without-key');
    const result = await runCrewd(['serve', crew, '--port', '0', '--database', join(tempDir(), 'crewd.db')], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `crewd: Agent 'analyst': model "gemini/gemini-2.0-flash" needs GEMINI_API_KEY (or GOOGLE_API_KEY)\n`,
    );
  });

  it('refuses to start a hierarchical crew without a manager, instead of failing each execution', async () => {
    const crew = join(import.meta.dirname, 'crews/hierarchical-without-manager');
    const result = await runCrewd(['serve', crew, '--port', '0', '--database', join(tempDir(), 'crewd.db')], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "crewd: A hierarchical crew needs a manager: set manager_llm or manager_agent in crew.yaml (or crew.py's Crew(...))\n",
    );
  });

  it('prints a working token, serves the example offline to the client commands, and exits 0 on SIGTERM', async () => {
    const database = join(tempDir(), 'crewd.db');
    const server = spawnCrewd(['serve', exampleCrew, '--port', '0', '--database', database]);
    const exit = finished(server);
    try {
      const [, url, token, curl] = await waitForOutput(
        server,
        /at (http:\/\/127\.0\.0\.1:\d+)\n[^\n]*\n {2}(\S+)\nTry it:\n {2}(curl [^\n]*)\n/,
      );
      expect(curl).toBe(`curl -H 'Authorization: Bearer ${token}' ${url}/inputs`);
      const client = { env: { CREWD_URL: url!, CREWD_TOKEN: token! } };

      const kickoff = await runCrewd(['kickoff', '--inputs', exampleInputs, '--wait', '--json'], client);
      expect(kickoff.code).toBe(0);
      const paused = JSON.parse(kickoff.stdout);
      expect(paused).toMatchObject({ state: 'PAUSED', pending_human_input: { task_id: 'outline_task' } });

      const resume = await runCrewd(
        [
          'resume',
          paused.kickoff_id,
          '--task',
          'outline_task',
          '--approve',
          '--feedback',
          'Fine',
          '--wait',
          '--json',
        ],
        client,
      );
      expect(resume.code).toBe(0);
      const done = JSON.parse(resume.stdout);
      expect(done.state).toBe('SUCCESS');
      expect(done.result).toMatch(/^# AI Agents in 2026/);

      // Ids are UUIDv7, so they sort in the order the executions were made.
      const later = JSON.parse(
        (await runCrewd(['kickoff', '--inputs', exampleInputs, '--json'], client)).stdout,
      );
      expect([paused.kickoff_id, later.kickoff_id]).toEqual([
        expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      ]);
      expect(later.kickoff_id > paused.kickoff_id).toBe(true);

      const unknown = await runCrewd(['status', 'no-such-id'], client);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^crewd: .*\(HTTP 404\)\n$/);
    } finally {
      server.kill('SIGTERM');
    }
    expect((await exit).code).toBe(0);
  });
});
