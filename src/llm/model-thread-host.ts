import type { MessagePort } from 'node:worker_threads';
import type { ChatModel } from './chat-model.ts';
import { inProcessAdapters } from './model-adapters.ts';
import { createModelFetch } from './model-fetch.ts';
import { callFailure, type ModelThreadReply, type ModelThreadRequest } from './model-thread-protocol.ts';

/**
 * The model thread's side: opens the models it is told of, over one HTTP client of its own, and makes the calls it
 * is asked for, each answered by its number. An abort stops the call's request.
 */
export function serveModelCalls(port: MessagePort): void {
  const modelFetch = createModelFetch();
  const models = new Map<number, ChatModel>();
  const calls = new Map<number, AbortController>();
  const reply = (message: ModelThreadReply): void => port.postMessage(message);

  port.on('message', (message: ModelThreadRequest) => {
    switch (message.kind) {
      case 'open':
        models.set(
          message.model,
          inProcessAdapters(message.adapter, { ...message.options, fetch: modelFetch }),
        );
        return;
      case 'abort':
        calls.get(message.call)?.abort();
        return;
      case 'call': {
        const controller = new AbortController();
        calls.set(message.call, controller);
        const model = models.get(message.model)!;
        model
          .generate(message.request, controller.signal)
          .then(
            (response) => reply({ kind: 'answer', call: message.call, response }),
            (error: unknown) => reply({ kind: 'failure', call: message.call, error: callFailure(error) }),
          )
          .finally(() => calls.delete(message.call));
      }
    }
  });
}
