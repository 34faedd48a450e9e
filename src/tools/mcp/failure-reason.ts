import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** Why a connection failed, in words for operators and models: no headers, no response bodies, no stack. */
export function failureReason(error: unknown): string {
  if (error instanceof McpError) {
    if (error.code === (ErrorCode.RequestTimeout as number)) return 'the server did not answer in time';
    if (error.code === (ErrorCode.ConnectionClosed as number)) return 'the server closed the connection';
    return `the server answered with an error (${error.code})`;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  // The SDK's HTTP errors carry the status as a number; their messages carry the response body, which stays out.
  if (typeof code === 'number' && code >= 300 && code < 400) {
    return `the server redirected (HTTP ${code}) to another origin or method, which crewd does not follow`;
  }
  if (typeof code === 'number' && code >= 100 && code < 600) return `the server answered HTTP ${code}`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const systemCode =
    typeof cause?.code === 'string' ? cause.code : typeof code === 'string' ? code : undefined;
  if (systemCode !== undefined) return `connection failed (${systemCode})`;
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}
