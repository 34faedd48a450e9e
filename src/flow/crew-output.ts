import type { z } from 'zod';
import type { TaskOutput } from '../domain/task-output.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { JsonValue } from './cel-values.ts';
import { FlowMethodError } from './flow-errors.ts';
import { pydanticMessage } from './pydantic-message.ts';

/** crewAI's serialized CrewOutput: what `outputs.m` of a crew action holds. No `json`, as in crewAI. */
export type CrewOutputJson = { readonly raw: string; readonly token_usage: { [key: string]: number } } & {
  [key: string]: JsonValue;
};

export function crewOutputOf(outputs: readonly TaskOutput[], usage: TokenUsage): CrewOutputJson {
  const last = outputs[outputs.length - 1];
  return {
    raw: last?.output ?? '',
    pydantic: null,
    json_dict: (last?.outputJson ?? null) as JsonValue,
    tasks_output: outputs.map((output) => ({
      description: output.description,
      name: output.taskId,
      expected_output: output.expectedOutput,
      summary: output.summary,
      raw: output.output,
      pydantic: null,
      json_dict: output.outputJson as JsonValue,
      agent: output.agent,
      output_format: output.outputJson === null ? 'raw' : 'json',
    })),
    token_usage: {
      total_tokens: usage.totalTokens,
      prompt_tokens: usage.promptTokens,
      cached_prompt_tokens: 0,
      completion_tokens: usage.completionTokens,
      reasoning_tokens: 0,
      cache_creation_tokens: 0,
      successful_requests: usage.successfulRequests,
    },
  };
}

/** An agent or task entry checked by crewd's crew schema; the first problem fails the method, naming the key. */
export function validatedEntry<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: string,
  method: string,
): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const key = [where, ...(issue?.path ?? []).map(String)].join('.');
  const message =
    issue !== undefined && valueAt(value, issue.path) === undefined
      ? `missing required field '${String(issue.path.at(-1))}'`
      : pydanticMessage(issue);
  throw new FlowMethodError(method, `${key}: ${message}`);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
