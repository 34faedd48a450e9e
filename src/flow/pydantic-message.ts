import type { z } from 'zod';

const typeNames: Record<string, string> = {
  string: 'a valid string',
  boolean: 'a valid boolean',
  number: 'a valid number',
  int: 'a valid integer',
  object: 'a valid dictionary',
  record: 'a valid dictionary',
  array: 'a valid list',
};

/** A zod issue in pydantic's words, as crewAI's messages have them. */
export function pydanticMessage(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'is invalid';
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- other issues keep zod's words
  switch (issue.code) {
    case 'invalid_type':
      if (issue.message.endsWith('received undefined')) return 'Field required';
      return `Input should be ${typeNames[issue.expected] ?? `a valid ${issue.expected}`}`;
    case 'unrecognized_keys':
      return `Extra inputs are not permitted: ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
    case 'invalid_value':
      return `Input should be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
    default:
      return issue.message;
  }
}
