import { spawn, type ChildProcess } from 'node:child_process';

/** A TypeScript script running in its own Node process, talking over IPC. */
export interface ScriptProcess {
  readonly child: ChildProcess;
  /** The next message of `type` (messages are objects with a `type` field), waiting up to `timeoutMs`. */
  next<T extends { type: string }>(type: string, timeoutMs?: number): Promise<T>;
  send(message: unknown): void;
  /** Ends the process (SIGTERM, then SIGKILL after a grace period) and waits for it. */
  stop(): Promise<void>;
}

export interface SpawnScriptOptions {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags before the script, e.g. `--expose-gc`. */
  readonly nodeArgs?: readonly string[];
  /** Where the child's stdout goes; its stderr always shows, so failures are visible. */
  readonly stdout?: 'inherit' | 'ignore';
}

/** Starts `node --import tsx <script>` with an IPC channel. */
export function spawnScript(script: string, options: SpawnScriptOptions = {}): ScriptProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...(options.nodeArgs ?? []), script, ...(options.args ?? [])],
    {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', options.stdout ?? 'inherit', 'inherit', 'ipc'],
    },
  );
  const inbox: { type: string }[] = [];
  const waiting: { type: string; done: (message: { type: string }) => void }[] = [];
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let gone = false;
  void exited.then(() => (gone = true));

  child.on('message', (message: { type: string }) => {
    const index = waiting.findIndex((waiter) => waiter.type === message.type);
    if (index === -1) inbox.push(message);
    else waiting.splice(index, 1)[0]!.done(message);
  });

  return {
    child,
    next<T extends { type: string }>(type: string, timeoutMs = 60_000): Promise<T> {
      const queued = inbox.findIndex((message) => message.type === type);
      if (queued !== -1) return Promise.resolve(inbox.splice(queued, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${script} sent no ${type} in time`)), timeoutMs);
        const waiter = {
          type,
          done: (message: { type: string }) => {
            clearTimeout(timer);
            resolve(message as T);
          },
        };
        waiting.push(waiter);
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`${script} ended before sending ${type}`));
        });
      });
    },
    send(message) {
      if (!gone) child.send(message as object);
    },
    async stop() {
      if (gone) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
