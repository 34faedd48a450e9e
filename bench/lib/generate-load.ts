import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSettings } from './load-generator-main.ts';
import { spawnScript } from './spawn-script.ts';

/** Runs the load generator in a child process and returns what it measured. */
export async function generateLoad(settings: LoadSettings): Promise<LoadResult> {
  const script = spawnScript(fileURLToPath(new URL('./load-generator-main.ts', import.meta.url)), {
    args: [JSON.stringify(settings)],
  });
  try {
    return await script.next<LoadResult>('result', settings.durationMs + 60_000);
  } finally {
    await script.stop();
  }
}
