import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'dotenv';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The environment with a project's `.env` beneath it, as crewAI's `load_dotenv()` gives it: values from the file
 * fill in what the real environment does not set, and never replace what it does.
 */
export async function withProjectEnv(projectDir: string, env: Env): Promise<Env> {
  let text: string;
  try {
    text = await readFile(path.join(projectDir, '.env'), 'utf8');
  } catch {
    return env;
  }
  const merged: Record<string, string | undefined> = { ...parse(text) };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}
