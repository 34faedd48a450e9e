import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toErrorResponse } from '../error-handler.ts';

/** A tool's answer: the object itself, and its JSON as text for clients that read text alone (as MCP advises). */
export function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * A tool error carrying the contract's error body (`{error, message, code, details?}`) as its text: the same
 * messages the HTTP routes give, and for server faults nothing of the internal message.
 */
export function toolError(error: unknown): { readonly result: CallToolResult; readonly status: number } {
  const { status, body } = toErrorResponse(error);
  return { result: { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true }, status };
}
