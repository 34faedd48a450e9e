import type { ChatModel } from './chat-model.ts';

/**
 * A model whose adapter loads in the background from the moment the model is resolved (at start-up, for a crew's
 * models): the AI SDK's provider packages take long to load and hold memory, so a process loads only the providers
 * its crew names, without making start-up wait for them. A failed load fails the calls, not the process.
 */
export function lazyModel(id: string, load: () => Promise<ChatModel>): ChatModel {
  const loading = load();
  loading.catch(() => undefined);
  return {
    id,
    async generate(request, signal) {
      return (await loading).generate(request, signal);
    },
  };
}
