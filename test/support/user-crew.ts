import { cpSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/**
 * Copies a crew (a directory) to a new temporary directory outside this repository and returns the copy's path.
 *
 * Users keep crews anywhere: with no `package.json` around them, or one without `"type": "module"`. A crew loaded
 * from inside this repository inherits the repository's `"type": "module"`, so a test that loads it there sees
 * what no user sees. Every test that loads a crew the way users keep crews loads this copy.
 */
export function userCrew(sourceDir: string): string {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'crewd-user-crew-')));
  const copy = join(parent, basename(sourceDir));
  cpSync(sourceDir, copy, { recursive: true });
  return copy;
}
