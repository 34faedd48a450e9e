import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crewDirs } from './crew-dirs.ts';

/** Crews made for a figure in a temporary folder, removed with `remove`. */
export interface ManyCrews {
  /** Each crew's directory; its name (and so its base URL) is the directory's: `crew-001`, `crew-002`, … */
  readonly dirs: readonly string[];
  remove(): void;
}

/** `count` copies of the three-task crew, each in a directory of its own, as a server of many crews serves them. */
export function manyCrews(count: number): ManyCrews {
  const root = mkdtempSync(join(tmpdir(), 'crewd-bench-crews-'));
  const dirs = Array.from({ length: count }, (_unused, index) => {
    const dir = join(root, `crew-${String(index + 1).padStart(3, '0')}`);
    cpSync(crewDirs.threeTask, dir, { recursive: true });
    return dir;
  });
  return { dirs, remove: () => rmSync(root, { recursive: true, force: true }) };
}
