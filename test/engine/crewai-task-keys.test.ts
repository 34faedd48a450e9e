import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Timers } from '../../src/engine/timers.ts';
import { WorkspaceFiles } from '../../src/workspace/workspace-files.ts';
import { until } from '../support/until.ts';
import { agent, chatRequests, crew, engineHarnessPerTest, task, taskText } from './engine-harness.ts';

const harness = engineHarnessPerTest();

/** Timers a test fires by hand: nothing elapses until it says so. */
function manualTimers() {
  const started: { ms: number; fire: () => void; stopped: boolean }[] = [];
  const timers: Timers = {
    start(ms, onElapsed) {
      const timer = { ms, fire: onElapsed, stopped: false };
      started.push(timer);
      return () => {
        timer.stopped = true;
      };
    },
  };
  return { timers, started };
}

describe('markdown', () => {
  it('asks for a Markdown answer only on tasks with markdown: true', async () => {
    harness.fake.enqueue({ content: '# One' }, { content: 'two' });
    const definition = crew(
      [agent('writer')],
      [task('styled', 'writer', { markdown: true }), task('plain', 'writer')],
    );

    await harness.run(definition);

    const [styled, plain] = chatRequests(harness.fake);
    expect(taskText(styled!)).toContain('Format your final answer in Markdown');
    expect(taskText(plain!)).not.toContain('Markdown');
  });
});

describe('inject_date', () => {
  it("adds today's date from the clock to the task, in the agent's date_format", async () => {
    harness.fake.enqueue({ content: 'a' }, { content: 'b' }, { content: 'c' });
    const definition = crew(
      [
        agent('dated', { injectDate: true }),
        agent('spelled', { injectDate: true, dateFormat: '%A %d %B %Y' }),
        agent('undated'),
      ],
      [task('first', 'dated'), task('second', 'spelled'), task('third', 'undated')],
    );

    await harness.run(definition, { clock: () => new Date(2026, 2, 5, 12, 0, 0) });

    const [first, second, third] = chatRequests(harness.fake);
    expect(taskText(first!)).toContain('Do first\n\nCurrent Date: 2026-03-05');
    expect(taskText(second!)).toContain('Current Date: Thursday 05 March 2026');
    expect(taskText(third!)).not.toContain('Current Date');
  });
});

describe('max_execution_time', () => {
  it('fails the task with a clear message when the time runs out, without trying it again', async () => {
    let release = (): void => undefined;
    const held = new Promise((resolve) => {
      release = () => resolve(undefined);
    });
    harness.fake.enqueue({ content: 'too late', heldUntil: held });
    const { timers, started } = manualTimers();
    const definition = crew([agent('slow', { maxExecutionTime: 30 })], [task('wait', 'slow')]);

    const running = harness.run(definition, { timers }).catch((caught: unknown) => caught);
    await until(() => chatRequests(harness.fake).length === 1);
    expect(started.map((timer) => timer.ms)).toEqual([30_000]);
    started[0]!.fire();
    const error = await running;
    release();

    expect(error).toMatchObject({ code: 'TASK_FAILED' });
    expect((error as Error).message).toBe(
      "Task 'wait' failed: it ran longer than its agent's max_execution_time of 30 seconds; raise max_execution_time or make the task smaller",
    );
    expect(chatRequests(harness.fake)).toHaveLength(1);
  });

  it('stops the timer when the task finishes in time', async () => {
    harness.fake.enqueue({ content: 'done' });
    const { timers, started } = manualTimers();

    await harness.run(crew([agent('quick', { maxExecutionTime: 5 })], [task('go', 'quick')]), { timers });

    expect(started).toHaveLength(1);
    expect(started[0]!.stopped).toBe(true);
  });
});

describe('output_file', () => {
  let root: string;
  let files: WorkspaceFiles;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crewd-output-files-'));
    files = WorkspaceFiles.underRoot(root);
  });

  it('saves the answer at the path with its placeholders filled, making its directories', async () => {
    harness.fake.enqueue({ content: '# Tides' });
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { outputFile: 'reports/{topic}.md' })],
    );

    const outcome = await harness.run(definition, {
      inputs: { topic: 'tides' },
      outputFiles: files,
      executionId: 'exec-1',
    });

    expect(readFileSync(join(root, 'exec-1/reports/tides.md'), 'utf8')).toBe('# Tides');
    expect(outcome.kind === 'completed' && outcome.outputs[0]?.outputFile).toEqual({
      path: 'reports/tides.md',
      bytes: 7,
    });
  });

  it('saves a structured answer as indented JSON', async () => {
    harness.fake.enqueue({ content: '{"title": "Tides"}' });
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const definition = crew(
      [agent('writer')],
      [task('write', 'writer', { outputJson: schema, outputFile: 'out.json' })],
    );

    await harness.run(definition, { outputFiles: files, executionId: 'exec-2' });

    expect(readFileSync(join(root, 'exec-2/out.json'), 'utf8')).toBe('{\n  "title": "Tides"\n}');
  });

  it('refuses an input that would lead the file out of the workspace', async () => {
    harness.fake.enqueue({ content: 'x' });
    const definition = crew(
      [agent('writer', { maxRetryLimit: 0 })],
      [task('write', 'writer', { outputFile: 'out/{name}.md' })],
    );

    const error: unknown = await harness
      .run(definition, { inputs: { name: '../../escaped' }, outputFiles: files, executionId: 'exec-3' })
      .catch((caught: unknown) => caught);

    expect((error as Error).message).toBe(
      "Task 'write' failed: output_file 'out/../../escaped.md' leads outside the execution's workspace",
    );
    expect(existsSync(join(root, 'escaped.md'))).toBe(false);
  });

  it('fails when the directory is missing and create_directory is false', async () => {
    harness.fake.enqueue({ content: 'x' });
    const definition = crew(
      [agent('writer', { maxRetryLimit: 0 })],
      [task('write', 'writer', { outputFile: 'missing/out.md', createDirectory: false })],
    );

    const error: unknown = await harness
      .run(definition, { outputFiles: files, executionId: 'exec-4' })
      .catch((caught: unknown) => caught);

    expect((error as Error).message).toBe(
      "Task 'write' failed: output_file 'missing/out.md': its directory does not exist and create_directory is false",
    );
  });

  it('fails with a clear message when a placeholder makes the file name too long, without trying again', async () => {
    harness.fake.enqueue({ content: 'x' });
    const definition = crew([agent('writer')], [task('write', 'writer', { outputFile: 'out/{name}.md' })]);

    const error: unknown = await harness
      .run(definition, { inputs: { name: 'n'.repeat(300) }, outputFiles: files, executionId: 'exec-5' })
      .catch((caught: unknown) => caught);

    expect((error as Error).message).toBe(
      `Task 'write' failed: output_file 'out/${'n'.repeat(116)}… [clipped: 187 more characters]' could not be ` +
        'written: its name is too long for the file system (at most 255 bytes per name)',
    );
    // One model call: a file that cannot be written is not worth another answer.
    expect(chatRequests(harness.fake)).toHaveLength(1);
    expect(readdirSync(join(root, 'exec-5/out'))).toEqual([]);
  });

  it('saves a file whose name is as long as the file system allows', async () => {
    harness.fake.enqueue({ content: 'x' });
    const name = 'n'.repeat(252);
    const definition = crew([agent('writer')], [task('write', 'writer', { outputFile: '{name}.md' })]);

    await harness.run(definition, { inputs: { name }, outputFiles: files, executionId: 'exec-6' });

    expect(readdirSync(join(root, 'exec-6'))).toEqual([`${name}.md`]);
  });

  it('names what is in the way when a part of the path is a file', async () => {
    mkdirSync(join(root, 'exec-7'), { recursive: true });
    writeFileSync(join(root, 'exec-7/notes'), 'a file');
    harness.fake.enqueue({ content: 'x' });
    const definition = crew(
      [agent('writer', { maxRetryLimit: 0 })],
      [task('write', 'writer', { outputFile: 'notes/today.md' })],
    );

    const error: unknown = await harness
      .run(definition, { outputFiles: files, executionId: 'exec-7' })
      .catch((caught: unknown) => caught);

    expect((error as Error).message).toBe(
      "Task 'write' failed: output_file 'notes/today.md' could not be written: a part of its path is a file, not a directory",
    );
  });
});
