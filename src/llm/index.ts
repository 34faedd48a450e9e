export type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  ModelResolver,
  ToolCall,
  ToolSpec,
} from './chat-model.ts';
export { createAnthropicModel } from './anthropic-model.ts';
export type { AnthropicModelOptions } from './anthropic-model.ts';
export { createOpenAIModel } from './openai-model.ts';
export type { OpenAIModelOptions } from './openai-model.ts';
export { createReplayRecorder, recordTo } from './recording-model.ts';
export type { ReplayRecorder } from './recording-model.ts';
export { createReplayModel } from './replay-model.ts';
export { createModelResolver, defaultModelTimeoutMs } from './resolve-model.ts';
export type { ModelResolverOptions } from './resolve-model.ts';
export { withRetries } from './retrying-model.ts';
export type { RetryOptions } from './retrying-model.ts';
