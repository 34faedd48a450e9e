import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCrewd, tempDir } from './crewd-command.ts';

// The first test runs two crewd processes, the third six; the bounds are generous for a busy machine.
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

  it(
    "runs to the end with a newcomer's own topic and feedback: the recorded inputs answer as recorded, others with a labelled stand-in",
    { timeout: 300_000 },
    async () => {
      const dir = join(tempDir(), 'my-crew');
      expect((await runCrewd(['init', dir])).code).toBe(0);
      const run = (topic: string, answers: string) =>
        runCrewd(['run', dir, '--inputs', JSON.stringify({ topic })], { input: answers });
      const longTopic = `tide pools ${'and the rocky shores around them '.repeat(60)}`.trim();

      // Each answered as a person types at the prompts: approve with feedback, reject with none and then approve.
      const [recorded, recordedRetry, unicode, long, blank] = await Promise.all([
        run('tide pools', 'y\nok\n'),
        run('tide pools', 'n\nMore about safety, please\ny\nok\n'),
        run('Gezeitentümpel 🌊 und 潮だまり', 'y\nok\n'),
        run(longTopic, 'n\n\ny\nLooks good — go ahead\n'),
        run(' ', 'y\n\n'),
      ]);

      for (const result of [recorded, recordedRetry]) {
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ title: 'Tide Pools, a First Visit' });
        expect(result.stdout + result.stderr).not.toContain('Offline stand-in');
      }
      for (const result of [unicode, long, blank]) {
        expect(result.stderr).not.toContain('failed');
        expect(result.code).toBe(0);
        const brief = JSON.parse(result.stdout) as { title: string; summary: string; key_points: string[] };
        expect(brief.title).toMatch(/^Offline stand-in answer: no model wrote this\./);
        expect(brief.title).toContain('or remove llm and set MODEL');
        expect(brief.summary).toBe('Offline stand-in answer (summary)');
        expect(brief.key_points).toEqual(['Offline stand-in answer (key_points[0])']);
        // The outline under review said it was a stand-in, and named the topic it was asked about.
        expect(result.stderr).toContain('outline_task (attempt 1) is waiting for your review');
        expect(result.stderr).toContain('Asked for: Outline a one-page brief on');
      }
      expect(unicode.stderr).toContain(
        'Asked for: Outline a one-page brief on Gezeitentümpel 🌊 und 潮だまり',
      );
      expect(long.stderr).toContain('outline_task (attempt 2) is waiting for your review');
    },
  );

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
