import { fileURLToPath } from 'node:url';
import { spawnScript } from './spawn-script.ts';

export interface FakeModelProcess {
  /** Base URL ending in /v1, for OPENAI_BASE_URL. */
  readonly url: string;
  /** Chat Completions requests received so far, and how many of them asked for a slow answer. */
  stats(): Promise<{ received: number; slowReceived: number }>;
  stop(): Promise<void>;
}

/** Starts the project's fake OpenAI-compatible server in a child process (answers at once unless asked). */
export async function startFakeModel(): Promise<FakeModelProcess> {
  const script = spawnScript(fileURLToPath(new URL('./fake-model-main.ts', import.meta.url)));
  const { url } = await script.next<{ type: string; url: string }>('ready');
  return {
    url,
    async stats() {
      script.send({ type: 'stats' });
      return script.next<{ type: string; received: number; slowReceived: number }>('stats');
    },
    stop: () => script.stop(),
  };
}

/** Words to put in a prompt (e.g. a crew input) so the fake model answers after `ms`. */
export function slowAnswers(ms: number): string {
  return `slow-${ms}`;
}
