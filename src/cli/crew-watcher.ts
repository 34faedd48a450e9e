import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface CrewWatcher {
  close(): void;
}

/** Files whose change changes the crew: its YAML and JSONC, crew.py, tools, and `.env`. */
const crewFile = /(\.(ya?ml|jsonc?|py|[mc]?ts|[mc]?js)|^\.env)$/;
/** Folders that hold no crew file but change often (crewd's own data, dependencies, version control). */
const ignoredFolder = /(^|[\\/])(\.crewd|node_modules|\.git|__pycache__|\.venv|workspace)([\\/]|$)/;
/** Editors save in several writes; one reload follows them all. */
const settleMs = 150;

/**
 * Calls `onChange` with the file's path (relative to `dir`) after a crew file under `dir` changes, once per burst
 * of changes.
 */
export function watchCrew(dir: string, onChange: (file: string) => void): CrewWatcher {
  let pending: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(path.resolve(dir), { recursive: true }, (_event, name) => {
    if (name === null) return;
    const file = name.toString();
    if (ignoredFolder.test(file) || !crewFile.test(path.basename(file))) return;
    clearTimeout(pending);
    pending = setTimeout(() => onChange(file), settleMs);
  });
  return {
    close() {
      clearTimeout(pending);
      watcher.close();
    },
  };
}
