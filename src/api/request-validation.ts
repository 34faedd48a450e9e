import type { FastifySchemaCompiler } from 'fastify';
import type { ZodType, core } from 'zod';
import { CrewdError } from '../domain/errors.ts';

type Issue = core.$ZodIssue;

const wholePart: Readonly<Record<string, string>> = {
  body: 'Request body',
  querystring: 'Query string',
  params: 'Path',
  headers: 'Headers',
};

const typeNouns: Readonly<Record<string, string>> = {
  object: 'an object',
  record: 'an object',
  array: 'an array',
  string: 'a string',
  boolean: 'a boolean',
  number: 'a number',
  int: 'an integer',
};

/** `humanInputWebhook.authentication.token`, `items[2].name`. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/** One sentence that names the field and says what is wrong, without echoing the value. */
export function describeIssue(issue: Issue, part: string): string {
  const field = fieldName(issue.path);
  const subject = field === '' ? (wholePart[part] ?? 'Request') : field;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `${subject} is required`;
      return `${subject} must be ${typeNouns[issue.expected] ?? issue.expected}`;
    case 'invalid_union': {
      const options = (issue as { options?: readonly unknown[] }).options;
      return options === undefined
        ? `${subject} is invalid`
        : `${subject} must be one of ${options.map(String).join(', ')}`;
    }
    case 'invalid_value':
      return `${subject} must be one of ${issue.values.map(String).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1
          ? `${subject} must not be empty`
          : `${subject} must have at least ${issue.minimum} characters`;
      return `${subject} must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `${subject} must have at most ${issue.maximum} characters`;
      return `${subject} must be at most ${issue.maximum}`;
    case 'custom':
    case 'invalid_format':
      return `${subject} ${issue.message}`;
    case 'not_multiple_of':
    case 'unrecognized_keys':
    case 'invalid_key':
    case 'invalid_element':
      return `${subject} is invalid`;
  }
}

/** The first problem is the message; every problem is listed in `details.fields`. */
export function requestValidationError(issues: readonly Issue[], part: string): CrewdError {
  const fields = issues.map((issue) => ({
    field: fieldName(issue.path),
    message: describeIssue(issue, part),
  }));
  return new CrewdError('VALIDATION_ERROR', fields[0]?.message ?? 'The request is invalid', {
    details: { fields },
  });
}

/** Validates with zod and fails with a contract error that names the field. */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> = ({ schema, httpPart }) => {
  return (data) => {
    // reportInput tells a missing field from a wrong one; inputs never leave this function.
    const result = schema.safeParse(data, { reportInput: true });
    if (result.success) return { value: result.data };
    return { error: requestValidationError(result.error.issues, httpPart ?? 'body') };
  };
};
