import { fileURLToPath } from 'node:url';
import { spawnScript } from './spawn-script.ts';
import { median } from './stats.ts';

export interface FakeModelProcess {
  /** Base URL ending in /v1, for OPENAI_BASE_URL. */
  readonly url: string;
  /** The model process's id, to read its CPU time. */
  readonly pid: number;
  /** Chat Completions requests received so far, and how many of them asked for a slow answer. */
  stats(): Promise<{ received: number; slowReceived: number }>;
  /**
   * How far the model process's clock (`performance.timeOrigin + performance.now()`) is ahead of this one's, in
   * milliseconds, taken over an IPC round trip; timestamps it writes are corrected by this.
   */
  clockOffset(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the project's fake OpenAI-compatible server in a child process (answers at once unless asked). */
export async function startFakeModel(): Promise<FakeModelProcess> {
  const script = spawnScript(fileURLToPath(new URL('./fake-model-main.ts', import.meta.url)));
  const { url } = await script.next<{ type: string; url: string }>('ready');
  return {
    url,
    pid: script.child.pid!,
    async stats() {
      script.send({ type: 'stats' });
      return script.next<{ type: string; received: number; slowReceived: number }>('stats');
    },
    async clockOffset() {
      const offsets: number[] = [];
      for (let index = 0; index < 5; index += 1) {
        const sent = performance.timeOrigin + performance.now();
        script.send({ type: 'stats' });
        const { now } = await script.next<{ type: string; now: number }>('stats');
        const back = performance.timeOrigin + performance.now();
        offsets.push(now - (sent + back) / 2);
      }
      return median(offsets);
    },
    stop: () => script.stop(),
  };
}

/** Words to put in a prompt (e.g. a crew input) so the fake model answers after `ms`. */
export function slowAnswers(ms: number): string {
  return `slow-${ms}`;
}
