import type { ChatModel, ChatRequest } from '../llm/chat-model.ts';

/** crewAI's prompt (translations `human_feedback_collapse`) asking a model which outcome feedback means. */
export function collapsePrompt(feedback: string, outcomes: readonly string[]): string {
  return (
    'Based on the following human feedback, determine which outcome best matches their intent.\n\n' +
    `Feedback: ${feedback}\n\nPossible outcomes: ${outcomes.join(', ')}\n\n` +
    'Respond with ONLY one of the exact outcome values listed above, nothing else.'
  );
}

export interface OutcomeRequest {
  readonly feedback: string;
  /** The method's `human_feedback.emit`; undefined or empty when it does not route. */
  readonly emit: readonly string[] | undefined;
  readonly defaultOutcome: string | undefined;
  /** The model that classifies free-text feedback; undefined when `llm: null`. */
  readonly model: ChatModel | undefined;
  readonly signal?: AbortSignal;
  /** Awaited before the model is asked (never when no call is needed); what it throws stops the classification. */
  readonly beforeCall?: (chat: ChatRequest) => void | Promise<void>;
}

/**
 * The outcome of a review, as crewAI 1.15.17 decides it: feedback that is exactly one of `emit` is that outcome
 * (no model call); empty feedback is `default_outcome`, else the first of `emit`; otherwise the model classifies
 * it (a structured answer, then a plain one matched case-insensitively or by the longest outcome it contains),
 * falling back to the first outcome. Without `emit` there is no outcome (null).
 */
export async function feedbackOutcome(request: OutcomeRequest): Promise<string | null> {
  const emit = request.emit ?? [];
  const fallback = request.defaultOutcome ?? emit[0] ?? null;
  if (request.feedback.trim() === '') return fallback;
  if (emit.length === 0) return null;
  if (emit.includes(request.feedback)) return request.feedback;
  if (request.model === undefined) return emit[0] ?? null;
  const model = request.model;
  const signal = request.signal ?? new AbortController().signal;
  const messages = [{ role: 'user' as const, content: collapsePrompt(request.feedback, emit) }];
  const schema = {
    type: 'object',
    properties: { outcome: { type: 'string', enum: [...emit] } },
    required: ['outcome'],
    additionalProperties: false,
  };
  const structured: ChatRequest = { messages, responseSchema: { name: 'FeedbackOutcome', schema } };
  await request.beforeCall?.(structured);
  try {
    const response = await model.generate(structured, signal);
    return structuredOutcome(response.text, emit) ?? exactOutcome(response.text, emit) ?? emit[0] ?? null;
  } catch {
    // crewAI's plain fallback when the structured call fails.
    try {
      const response = await model.generate({ messages }, signal);
      return matchOutcome(response.text, emit) ?? emit[0] ?? null;
    } catch {
      return emit[0] ?? null;
    }
  }
}

function exactOutcome(text: string, emit: readonly string[]): string | undefined {
  return emit.find((option) => option.toLowerCase() === text.trim().toLowerCase());
}

/** `{"outcome": "x"}` with x one of `emit`; undefined when the answer is not that JSON. */
function structuredOutcome(text: string, emit: readonly string[]): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const outcome = (parsed as { outcome?: unknown } | null)?.outcome;
    if (typeof outcome === 'string')
      return emit.find((option) => option.toLowerCase() === outcome.trim().toLowerCase());
  } catch {
    // Not JSON: match the plain text instead.
  }
  return undefined;
}

/** A case-insensitive exact match, else the longest outcome the answer contains (the first of equals). */
export function matchOutcome(text: string, emit: readonly string[]): string | undefined {
  const answer = text.trim().toLowerCase();
  const exact = exactOutcome(answer, emit);
  if (exact !== undefined) return exact;
  let best: string | undefined;
  for (const option of emit) {
    if (answer.includes(option.toLowerCase()) && (best === undefined || option.length > best.length))
      best = option;
  }
  return best;
}
