import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '../../bench/summarize-profile.ts');

// main calls work (3 ms of samples) and idles (1 ms); work calls a library (2 ms).
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0 });
const profile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
    { id: 2, callFrame: frame('main', 'file:///app/src/main.ts'), children: [3] },
    { id: 3, callFrame: frame('work', 'file:///app/src/work.ts'), children: [4] },
    { id: 4, callFrame: frame('parse;fast', 'file:///app/node_modules/lib/index.js') },
    { id: 5, callFrame: frame('(idle)', '') },
  ],
  samples: [3, 4, 4, 5],
  timeDeltas: [0, 1000, 1000, 1000, 1000],
};

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'crewd-profile-'));
  file = join(dir, 'test.cpuprofile');
  writeFileSync(file, JSON.stringify(profile));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function summarize(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, file, ...args]);
  return stdout;
}

describe('bench/summarize-profile.ts', () => {
  it('prints self time by package and by function', async () => {
    const output = await summarize();
    expect(output).toContain('4 ms sampled');
    expect(output).toMatch(/2 ms +50\.0% +lib\n/);
    expect(output).toMatch(/1 ms +25\.0% +\(idle\)\n/);
  });

  it('counts busy time by part of crewd, a library and Node with the crewd code that called them', async () => {
    const parts = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 5, 7, 8] },
        { id: 2, callFrame: frame('applyChange', 'file:///app/src/store/sqlite/store.ts'), children: [3] },
        {
          id: 3,
          callFrame: frame('run', 'file:///app/node_modules/better-sqlite3/lib/index.js'),
          children: [4],
        },
        { id: 4, callFrame: frame('write', 'node:internal/fs/utils') },
        { id: 5, callFrame: frame('fetch', 'file:///app/dist/llm/model-fetch.js'), children: [6] },
        { id: 6, callFrame: frame('request', 'file:///app/node_modules/undici/index.js') },
        { id: 7, callFrame: frame('(garbage collector)', '') },
        { id: 8, callFrame: frame('(idle)', '') },
      ],
      samples: [4, 3, 6, 7, 8],
      timeDeltas: [0, 1000, 1000, 1000, 1000, 1000],
    };
    const partsFile = join(dir, 'parts.cpuprofile');
    writeFileSync(partsFile, JSON.stringify(parts));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, partsFile]);
    expect(stdout).toContain('Busy time (4 ms, idle left out)');
    expect(stdout).toMatch(/2 ms +50\.0% +store\n/);
    expect(stdout).toMatch(/1 ms +25\.0% +model client\n/);
    expect(stdout).toMatch(/1 ms +25\.0% +garbage collector\n/);
  });

  it('prints folded stacks, root first, with self time in microseconds and no `;` inside a frame', async () => {
    const lines = (await summarize('--folded')).trim().split('\n').sort();
    expect(lines).toEqual([
      '(idle) (native) 1000',
      expect.stringMatching(/^main \S+src\/main\.ts:1:1;work \S+src\/work\.ts:1:1 1000$/),
      expect.stringMatching(/^main \S+;work \S+;parse,fast \S+node_modules\/lib\/index\.js:1:1 2000$/),
    ]);
  });
});
