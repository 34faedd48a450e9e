import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchCrew, type CrewWatcher } from './crew-watcher.ts';

describe('watchCrew', () => {
  let watcher: CrewWatcher | undefined;
  afterEach(() => watcher?.close());

  /** Watches a fresh crew folder; resolves each change reported, in order. */
  function watched(setUp: (dir: string) => void = () => {}) {
    const dir = mkdtempSync(join(tmpdir(), 'crewd-watch-'));
    setUp(dir);
    const reported: string[] = [];
    let notify: (() => void) | undefined;
    watcher = watchCrew(dir, (file) => {
      reported.push(file);
      notify?.();
    });
    const next = (count: number) =>
      new Promise<void>((resolve) => {
        notify = () => {
          if (reported.length >= count) resolve();
        };
        notify();
      });
    return { dir, reported, next };
  }

  it('reports a file saved in a subfolder at once after it returns', async () => {
    const { dir, reported, next } = watched((dir) => mkdirSync(join(dir, 'tools')));
    writeFileSync(join(dir, 'tools', 'echo.cjs'), 'module.exports = {};\n');
    await next(1);
    expect(reported).toEqual([join('tools', 'echo.cjs')]);
  });

  it('watches a folder made after it started, and leaves out files of no crew', async () => {
    const { dir, reported, next } = watched();
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'notes.txt'), 'not a crew file\n');
    // Events of one folder come in order: once this save is reported, the new folder's event was handled.
    writeFileSync(join(dir, 'crew.yaml'), 'name: c\n');
    await next(1);
    writeFileSync(join(dir, 'config', 'agents.yaml'), 'a: 1\n');
    await next(2);
    expect(reported).toEqual(['crew.yaml', join('config', 'agents.yaml')]);
  });

  it('watches the folder of a flow given as a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crewd-watch-'));
    writeFileSync(join(dir, 'flow.yaml'), 'name: F\n');
    const reported: string[] = [];
    const seen = new Promise<void>((resolve) => {
      watcher = watchCrew(join(dir, 'flow.yaml'), (file) => {
        reported.push(file);
        resolve();
      });
    });
    writeFileSync(join(dir, 'flow.yaml'), 'name: G\n');
    await seen;
    expect(reported).toEqual(['flow.yaml']);
  });
});
