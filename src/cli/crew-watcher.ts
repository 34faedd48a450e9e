import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
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
 * Calls `onChange` with the file's path (relative to the crew's folder) after a crew file under `dir` (a crew's
 * folder, or a flow file's) changes, once per burst of changes.
 *
 * Each folder gets a watcher of its own, set up before this returns: Node 20's recursive watching on Linux sets up
 * its watchers in the background, so a file saved just after the server said it was watching could go unnoticed.
 * A folder created later is watched from the event that shows it. A folder that cannot be watched (other than one
 * already gone) is told to `onUnwatchable`: its changes will go unnoticed.
 */
export function watchCrew(
  dir: string,
  onChange: (file: string) => void,
  onUnwatchable: (folder: string, error: Error) => void = () => {},
): CrewWatcher {
  const given = path.resolve(dir);
  const root = isDirectory(given) ? given : path.dirname(given);
  const watchers = new Map<string, FSWatcher>();
  let pending: NodeJS.Timeout | undefined;

  const changed = (file: string): void => {
    if (ignoredFolder.test(file) || !crewFile.test(path.basename(file))) return;
    clearTimeout(pending);
    pending = setTimeout(() => onChange(file), settleMs);
  };

  const watchFolder = (folder: string): void => {
    const relative = path.relative(root, folder);
    if (watchers.has(folder) || (relative !== '' && ignoredFolder.test(relative))) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, (_event, name) => {
        if (name === null) return;
        const full = path.join(folder, name.toString());
        if (isDirectory(full)) watchFolder(full);
        changed(path.join(relative, name.toString()));
      });
    } catch (error) {
      // Gone before it could be watched is no news; anything else (the system's limit on watches) is.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onUnwatchable(folder, error as Error);
      return;
    }
    watcher.on('error', (error) => {
      watcher.close();
      watchers.delete(folder);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onUnwatchable(folder, error);
    });
    watchers.set(folder, watcher);
    for (const entry of entriesOf(folder)) {
      if (entry.isDirectory()) watchFolder(path.join(folder, entry.name));
    }
  };
  watchFolder(root);

  return {
    close() {
      clearTimeout(pending);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function entriesOf(folder: string) {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}
