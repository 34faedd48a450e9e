import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ModelCallError } from '../domain/errors.ts';
import type { ChatModel, ChatResponse } from './chat-model.ts';
import type { AdapterName, AdapterOptions, ModelAdapters } from './model-adapters.ts';
import { failureError, type ModelThreadReply, type ModelThreadRequest } from './model-thread-protocol.ts';

/** Provider models whose calls a thread of their own makes; `close` stops that thread. */
export interface ModelThread {
  readonly adapters: ModelAdapters;
  close(): Promise<void>;
}

/**
 * Plain JavaScript run by `eval`, so it starts the same from the sources and from the build: from the sources it
 * registers the TypeScript loader first.
 */
const source = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.loader !== undefined) (await import(workerData.loader)).register();
  (await import(workerData.host)).serveModelCalls(parentPort);
})();
`;

/**
 * A thread that makes the model calls of a server's provider models, so that building requests, the HTTP client and
 * reading answers (a quarter of the server's own thread under load) run beside the store and the API instead of
 * between them. The thread starts with the first model and again at the next call after it stops; a call in flight
 * when it stops fails as a retryable model error. It does not keep the process alive.
 */
export function startModelThread(): ModelThread {
  const numbers = new Map<string, number>();
  const opened: { readonly adapter: AdapterName; readonly options: AdapterOptions[AdapterName] }[] = [];
  const pending = new Map<
    number,
    { readonly resolve: (response: ChatResponse) => void; readonly reject: (error: Error) => void }
  >();
  let worker: Worker | undefined;
  let nextCall = 0;

  const send = (message: ModelThreadRequest): void => {
    running().postMessage(message);
  };

  function running(): Worker {
    if (worker !== undefined) return worker;
    const started = spawn();
    worker = started;
    started.on('message', (reply: ModelThreadReply) => settle(reply));
    const stopped = (cause?: unknown): void => {
      if (worker === started) worker = undefined;
      for (const [call, { reject }] of pending) {
        pending.delete(call);
        reject(
          new ModelCallError('the model call was cut off: its thread stopped', {
            retryable: true,
            ...(cause instanceof Error ? { cause } : {}),
          }),
        );
      }
    };
    started.on('error', stopped);
    started.on('exit', () => stopped());
    opened.forEach(({ adapter, options }, model) =>
      started.postMessage({ kind: 'open', model, adapter, options } satisfies ModelThreadRequest),
    );
    return started;
  }

  /** Ends a call's wait; with none left, the thread no longer keeps the process alive. */
  function forget(call: number): boolean {
    const had = pending.delete(call);
    if (pending.size === 0) worker?.unref();
    return had;
  }

  function settle(reply: ModelThreadReply): void {
    const call = pending.get(reply.call);
    if (call === undefined) return;
    forget(reply.call);
    if (reply.kind === 'answer') call.resolve(reply.response);
    else call.reject(failureError(reply.error));
  }

  const adapters: ModelAdapters = (adapter, options) => {
    const { fetch: _fetch, now: _now, ...data } = options;
    // A crew deployed again resolves its models again: each distinct one is opened once.
    const key = JSON.stringify([adapter, data]);
    let model = numbers.get(key);
    if (model === undefined) {
      model = opened.push({ adapter, options: data }) - 1;
      numbers.set(key, model);
      if (worker !== undefined) send({ kind: 'open', model, adapter, options: opened[model]!.options });
      else running();
    }
    return threadModel(options.modelId, model);
  };

  function threadModel(id: string, model: number): ChatModel {
    return {
      id,
      generate: async (request, signal) => {
        signal.throwIfAborted();
        const call = nextCall++;
        return new Promise<ChatResponse>((resolve, reject) => {
          const onAbort = (): void => {
            if (!forget(call)) return;
            worker?.postMessage({ kind: 'abort', call } satisfies ModelThreadRequest);
            reject(signal.reason as Error);
          };
          signal.addEventListener('abort', onAbort, { once: true });
          const done = (): void => signal.removeEventListener('abort', onAbort);
          pending.set(call, {
            resolve: (response) => {
              done();
              resolve(response);
            },
            reject: (error) => {
              done();
              reject(error);
            },
          });
          send({ kind: 'call', call, model, request });
          worker?.ref();
        });
      },
    };
  }

  return {
    adapters,
    close: async () => {
      const stopping = worker;
      worker = undefined;
      await stopping?.terminate();
    },
  };
}

function spawn(): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const host = new URL(`./model-thread-host.${fromSources ? 'ts' : 'js'}`, import.meta.url).href;
  // tsx's ESM API (its `tsx/esm/api` for `import`): a worker does not share the loader its parent registered.
  const loader = fromSources
    ? pathToFileURL(
        join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
      ).href
    : undefined;
  const worker = new Worker(source, { eval: true, execArgv: [], workerData: { host, loader } });
  worker.unref();
  return worker;
}
