import type { CallSettings } from './ai-sdk-model.ts';

/** What every provider adapter takes besides its own connection settings. */
export interface ProviderModelOptions {
  /** The model as written in the crew, e.g. `gemini/gemini-2.0-flash`. */
  readonly modelId: string;
  /** The provider's model name (or Azure deployment), e.g. `gemini-2.0-flash`. */
  readonly model: string;
  readonly timeoutMs: number;
  readonly settings?: CallSettings;
  readonly fetch?: typeof globalThis.fetch;
  readonly now?: () => number;
}

/** The parts of `options` that `createAiSdkModel` takes as they are. */
export function commonModelOptions(options: ProviderModelOptions) {
  return {
    id: options.modelId,
    timeoutMs: options.timeoutMs,
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
}
