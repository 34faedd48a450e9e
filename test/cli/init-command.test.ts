import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCrewd, tempDir } from './crewd-command.ts';

// The first test runs two crewd processes; the bound is generous for a busy machine.
describe('crewd init', { timeout: 120_000 }, () => {
  it('writes a crew that the printed run command runs offline at once, with a review and structured output', async () => {
    const dir = join(tempDir(), 'my-crew');

    const init = await runCrewd(['init', dir]);

    expect(init.code).toBe(0);
    const commands = [...init.stdout.matchAll(/^ {2}npx crewd (.+?) {2,}#/gm)].map((match) =>
      match[1]!.trim(),
    );
    expect(commands).toHaveLength(3);
    expect(commands[1]).toBe(`serve ${dir}`);
    expect(commands[2]).toMatch(/^kickoff --inputs '\{"topic":"tide pools"\}' --wait/);
    const runArgs = /^run (\S+) --inputs '(.+)'$/.exec(commands[0]!);
    expect(runArgs?.[1]).toBe(dir);

    // No key and no network: the environment of the run has neither, and the replay file answers.
    const run = await runCrewd(['run', dir, '--inputs', runArgs![2]!], { input: 'y\n\n' });

    expect(run.code).toBe(0);
    expect(run.stderr).toContain('outline_task (attempt 1) is waiting for your review');
    expect(JSON.parse(run.stdout)).toEqual({
      title: 'Tide Pools, a First Visit',
      summary: expect.any(String),
      key_points: expect.arrayContaining([expect.any(String)]),
    });
  });

  it('refuses a directory that already holds a crew', async () => {
    const dir = tempDir();
    expect((await runCrewd(['init', dir])).code).toBe(0);

    const again = await runCrewd(['init', dir]);

    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `crewd: ${dir} already has crew.yaml, agents.yaml, tasks.yaml, starter-crew.replay.json; choose an empty directory\n`,
    );
  });
});
