import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const exampleCrew = join(repoRoot, 'examples/research-crew');
export const exampleInputs = JSON.stringify({ topic: 'AI agents', current_year: '2026' });

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CommandOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. */
  readonly input?: string;
  /** Leaves stdin open for the test to write to (and end) as the command asks; `input` is not used then. */
  readonly keepStdinOpen?: boolean;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'crewd-cli-'));
}

/** Settings of the test runner's environment that would change what crewd does. */
function cleanEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      /^(CREWD_|OPENAI_|ANTHROPIC_|GEMINI_|AZURE_|AWS_|OLLAMA_|GROQ_|MISTRAL_|DEEPSEEK_|OPENROUTER_|NVIDIA_NIM_|VLLM_)|^(MODEL|PORT|HOST|GOOGLE_API_KEY)$/.test(
        name,
      )
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Starts `crewd <args>` the way a user does (node bin/crewd.js), in a fresh temporary directory. */
export function spawnCrewd(
  args: readonly string[],
  options: CommandOptions = {},
): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/crewd.js'), ...args], {
    cwd: tempDir(),
    env: cleanEnv(options.env),
    stdio: 'pipe',
  });
  if (options.keepStdinOpen !== true) child.stdin.end(options.input ?? '');
  return child;
}

/** Runs `crewd <args>` to the end. */
export function runCrewd(args: readonly string[], options: CommandOptions = {}): Promise<CommandResult> {
  const child = spawnCrewd(args, options);
  return finished(child);
}

export function finished(child: ChildProcessWithoutNullStreams): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/** Resolves with the first match of `pattern` in the process's stdout. */
export function waitForOutput(
  child: ChildProcessWithoutNullStreams,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  let seen = '';
  return new Promise((done, fail) => {
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match === null) return;
      child.stdout.off('data', onData);
      done(match);
    };
    child.stdout.on('data', onData);
    child.once('exit', () => fail(new Error(`crewd exited before printing ${String(pattern)}:\n${seen}`)));
  });
}

/** A process's stderr (where progress and prompts go) as it grows; listen before the process writes anything. */
export interface GrowingText {
  /** Resolves with everything written so far once `text` has appeared `times` times; rejects if the process exits first. */
  waitFor(text: string, times?: number): Promise<string>;
}

export function watchStderr(child: ChildProcessWithoutNullStreams): GrowingText {
  let seen = '';
  let exited = false;
  const waiters = new Set<() => void>();
  child.stderr.on('data', (chunk: Buffer) => {
    seen += chunk.toString();
    for (const waiter of waiters) waiter();
  });
  child.once('close', () => {
    exited = true;
    for (const waiter of waiters) waiter();
  });
  return {
    waitFor(text, times = 1) {
      return new Promise((done, fail) => {
        const check = (): void => {
          if (seen.split(text).length - 1 >= times) {
            waiters.delete(check);
            done(seen);
          } else if (exited) {
            waiters.delete(check);
            fail(new Error(`crewd exited before writing ${JSON.stringify(text)}:\n${seen}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}
