#!/usr/bin/env node
// Starts the compiled build when it is current (`npm ci` builds it), which starts much faster; otherwise runs
// the TypeScript sources directly, so `npx crewd` works right after an edit with no build step.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const built = join(root, 'dist/cli/main.js');

/** @param {string} directory */
function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

if (existsSync(built) && statSync(built).mtimeMs >= newestSource(join(root, 'src'))) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
