import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiClient } from '../support/crewd.ts';
import { until } from '../support/until.ts';
import { exampleCrew, exampleInputs, spawnCrewd, tempDir } from './crewd-command.ts';

/** Everything a child prints on stdout, read as it comes. */
function outputOf(child: ChildProcessWithoutNullStreams): () => string {
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

async function match(output: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  await until(
    () => pattern.test(output()),
    undefined,
    () => `no ${String(pattern)} in:\n${output()}`,
  );
  return pattern.exec(output())!;
}

function stopped(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null) done(child.exitCode);
    else child.once('exit', (code) => done(code));
  });
}

const started = /at (http:\/\/127\.0\.0\.1:\d+)\nDevelopment token \([^\n]*kept in ([^\n]*)\):\n {2}(\S+)\n/;

describe('crewd serve --watch', { timeout: 180_000 }, () => {
  it('reloads the crew when a file changes, keeps executions, and keeps its token across restarts', async () => {
    const crewDir = join(tempDir(), 'crew');
    cpSync(exampleCrew, crewDir, { recursive: true });
    const database = join(tempDir(), 'crewd.db');
    const args = ['serve', crewDir, '--watch', '--port', '0', '--database', database];

    const first = spawnCrewd(args);
    const firstOutput = outputOf(first);
    try {
      const [, url, tokenFile, token] = await match(firstOutput, started);
      expect(tokenFile).toBe(join(dirname(database), 'dev-token'));
      expect(readFileSync(tokenFile!, 'utf8')).toBe(`${token}\n`);
      expect(statSync(tokenFile!).mode & 0o777).toBe(0o600);
      const api = apiClient(url!, token);
      expect((await api.get('/inputs')).body).toEqual({ inputs: ['topic', 'current_year'] });
      const kickoff = await api.post('/kickoff', { inputs: JSON.parse(exampleInputs) });
      const id = kickoff.body.kickoff_id as string;
      await api.waitForState(id, ['PAUSED']);

      const tasksFile = join(crewDir, 'tasks.yaml');
      const tasks = readFileSync(tasksFile, 'utf8');
      writeFileSync(tasksFile, tasks.replace('{topic}', '{topic} for {audience}'));
      const [, reloadedUrl, versions] = await match(
        firstOutput,
        /Reloaded the crew; serving it again at (\S+) \(([^)]*)\)\n/,
      );
      // A new version, served without a restart.
      expect(versions).toBe('crew version 2');

      expect(firstOutput()).toContain('tasks.yaml changed: reloading the crew\n');
      expect(reloadedUrl).toBe(url);
      expect((await api.get('/inputs')).body).toEqual({ inputs: ['topic', 'current_year', 'audience'] });
      expect((await api.get(`/status/${id}`)).body).toMatchObject({ state: 'PAUSED' });

      // A crew that no longer loads is reported, the version served goes on, and the next good save serves again.
      writeFileSync(tasksFile, 'outline_task: [not, a, task\n');
      await match(firstOutput, /Still serving the crew as it was: fix it and save again\n/);
      expect((await api.get('/inputs')).body).toEqual({ inputs: ['topic', 'current_year', 'audience'] });
      writeFileSync(tasksFile, tasks);
      await until(() => firstOutput().split('Reloaded the crew;').length === 3);
      expect((await api.get('/inputs')).body).toEqual({ inputs: ['topic', 'current_year'] });
    } finally {
      first.kill('SIGTERM');
    }
    expect(await stopped(first)).toBe(0);

    const second = spawnCrewd(args);
    const secondOutput = outputOf(second);
    try {
      const [, url, , token] = await match(secondOutput, started);
      const firstToken = started.exec(firstOutput())![3];
      expect(token).toBe(firstToken);
      expect((await apiClient(url!, firstToken).get('/inputs')).status).toBe(200);
    } finally {
      second.kill('SIGTERM');
    }
    expect(await stopped(second)).toBe(0);
  });

  it('reloads a CommonJS tool module when it changes, reading the edited file instead of the one Node cached', async () => {
    const crewDir = join(tempDir(), 'crew');
    mkdirSync(join(crewDir, 'tools'), { recursive: true });
    writeFileSync(
      join(crewDir, 'agents.yaml'),
      'helper:\n  role: Helper\n  goal: Echo {word}\n  backstory: You echo.\n  llm: openai/gpt-4o-mini\n  tools: [echo]\n',
    );
    writeFileSync(
      join(crewDir, 'tasks.yaml'),
      'echo_task:\n  description: Echo {word}.\n  expected_output: The word.\n  agent: helper\n',
    );
    const toolFile = join(crewDir, 'tools/echo.cjs');
    const tool = (name: string): string =>
      `module.exports = { name: '${name}', description: 'Echoes', inputSchema: { type: 'object' }, run: () => 'echo' };\n`;
    writeFileSync(toolFile, tool('echo'));
    const database = join(tempDir(), 'crewd.db');

    const child = spawnCrewd(['serve', crewDir, '--watch', '--port', '0', '--database', database], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    const output = outputOf(child);
    try {
      await match(output, started);

      // The agent names 'echo', which the edited module no longer defines: the crew must stop loading.
      writeFileSync(toolFile, tool('renamed'));
      await match(
        output,
        /tools\/echo\.cjs changed: reloading the crew\n[^]*Still serving the crew as it was/,
      );
      writeFileSync(toolFile, tool('echo'));
      await match(output, /Reloaded the crew; serving it again at /);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await stopped(child)).toBe(0);
  });
});
