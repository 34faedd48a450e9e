import type { CallEstimate } from '../domain/budget.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { ChatRequest, ChatResponse } from '../llm/chat-model.ts';
import type { PriceTable } from '../llm/price-table.ts';

/** A model call's usage as its answer reports it, priced when a price table is given (else it has no cost). */
export function usageOf(response: ChatResponse, model: string, prices: PriceTable | undefined): TokenUsage {
  const { promptTokens, completionTokens } = response.usage;
  // The counts first and the price spread after them: on Node 20, fields added after a leading spread take V8's
  // slow path.
  const usage = (price: Pick<TokenUsage, 'costUsd' | 'unpricedRequests'>): TokenUsage => ({
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    successfulRequests: 1,
    ...price,
  });
  if (prices === undefined) return usage({});
  const costUsd = prices.costUsd(model, { input: promptTokens, output: completionTokens });
  return usage(costUsd === undefined ? { unpricedRequests: 1 } : { costUsd });
}

/** About four characters a token: enough to tell a call that would pass a budget before it is made. */
const charsPerToken = 4;

/** The prompt of `chat` in tokens, estimated from its length, and what those tokens cost at the model's price. */
export function estimateCall(chat: ChatRequest, model: string, prices: PriceTable | undefined): CallEstimate {
  let chars = 0;
  for (const message of chat.messages) {
    chars += message.content.length;
    if (message.role === 'assistant' && message.toolCalls !== undefined) {
      chars += JSON.stringify(message.toolCalls).length;
    }
  }
  if (chat.tools !== undefined) chars += JSON.stringify(chat.tools).length;
  const tokens = Math.ceil(chars / charsPerToken);
  return { tokens, costUsd: prices?.costUsd(model, { input: tokens, output: 0 }) };
}
