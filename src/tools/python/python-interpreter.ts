import { access, constants } from 'node:fs/promises';
import path from 'node:path';

/** The interpreter that runs a project's Python tools, and why that one. */
export interface PythonInterpreter {
  readonly command: string;
  /** Where the choice came from, for `crewd check` and messages: `CREWD_PYTHON`, `the project's .venv`, `PATH`. */
  readonly source: string;
}

/**
 * The project's Python: `CREWD_PYTHON` when set, else the virtual environment `crewai install` (uv) makes in the
 * project root (`.venv/`), else `python3` from the PATH.
 */
export async function pythonInterpreter(
  projectRoots: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<PythonInterpreter> {
  const chosen = env.CREWD_PYTHON?.trim();
  if (chosen !== undefined && chosen !== '') {
    // The host runs in the project root: a path given relative to where crewd started is made absolute first.
    const command = chosen.includes('/') ? path.resolve(chosen) : chosen;
    return { command, source: 'CREWD_PYTHON' };
  }
  for (const root of new Set(projectRoots.map((root) => path.resolve(root)))) {
    for (const candidate of [
      path.join(root, '.venv', 'bin', 'python'),
      path.join(root, '.venv', 'Scripts', 'python.exe'),
    ]) {
      if (await isExecutable(candidate)) return { command: candidate, source: "the project's .venv" };
    }
  }
  return { command: 'python3', source: 'PATH' };
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
