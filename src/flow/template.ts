import type { CelValue } from '@bufbuild/cel';
import { compileCel } from './cel-expression.ts';
import type { CelExpression, CelRoot } from './cel-expression.ts';
import { fromCel } from './cel-values.ts';
import type { JsonValue } from './cel-values.ts';
import { ExpressionSyntaxError } from './flow-errors.ts';
import { pythonJsonDumps } from './python-text.ts';

/** A string with `${…}` segments: literal text and checked CEL expressions, in order. */
export interface Template {
  readonly parts: readonly (string | CelExpression)[];
}

type Context = Readonly<Partial<Record<CelRoot, unknown>>>;

/**
 * Splits `value` at its `${…}` segments as crewAI does: a segment ends at the `}` that closes its `${`, counted
 * with CEL's lexical rules, so braces inside string literals and map literals do not end it. There is no escape:
 * a literal `${` is written as the CEL string `${'${'}`; a `$` not followed by `{` is text.
 */
export function parseTemplate(value: string, where: string, roots: readonly CelRoot[]): Template {
  const sources: string[] = [];
  const parts: (string | { source: string })[] = [];
  let position = 0;
  let literal = '';
  while (position < value.length) {
    const open = value.indexOf('${', position);
    if (open < 0) break;
    literal += value.slice(position, open);
    const close = closingBrace(value, open + 2, where);
    if (literal !== '') parts.push(literal);
    literal = '';
    const source = value.slice(open + 2, close);
    if (source.trim() === '')
      throw new ExpressionSyntaxError(`empty CEL expression in '${value}' at ${where}`);
    parts.push({ source });
    sources.push(source);
    position = close + 1;
  }
  literal += value.slice(position);
  if (literal !== '') parts.push(literal);
  let index = 0;
  return {
    parts: parts.map((part) => {
      if (typeof part === 'string') return part;
      index += 1;
      const at = sources.length > 1 ? `${where} (expression ${index})` : where;
      return compileCel(part.source, at, roots);
    }),
  };
}

/** Whether `value` holds a `${` at all (strings without one are passed on as they are). */
export function isTemplate(value: string): boolean {
  return value.includes('${');
}

/**
 * Renders a template. One segment with only whitespace around it keeps the value's type (a number, a list…);
 * otherwise the result is text: strings as they are, `null` as nothing, anything else as Python's `json.dumps`.
 */
export function renderTemplate(template: Template, context: Context): JsonValue {
  const expressions = template.parts.filter((part) => typeof part !== 'string');
  const [only] = expressions;
  const literals = template.parts.filter((part) => typeof part === 'string');
  if (expressions.length === 1 && only !== undefined && literals.every((text) => text.trim() === '')) {
    return fromCel(only.evaluate(context));
  }
  return template.parts
    .map((part) => (typeof part === 'string' ? part : asText(part.evaluate(context))))
    .join('');
}

function asText(value: CelValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  return pythonJsonDumps(value);
}

/** Strips the optional `${…}` wrapper crewAI accepts around fields that are CEL already (`expr`, `in`, `if`). */
export function unwrapExpression(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith('${') && trimmed.endsWith('}')) {
    try {
      if (closingBrace(trimmed, 2, '') === trimmed.length - 1) return trimmed.slice(2, -1);
    } catch {
      // Not one whole segment: leave it to the CEL parser to report.
    }
  }
  return value;
}

/** The index of the `}` closing a segment whose source starts at `start`, skipping CEL string literals. */
function closingBrace(value: string, start: number, where: string): number {
  let depth = 1;
  let position = start;
  while (position < value.length) {
    const character = value[position] ?? '';
    if (character === '"' || character === "'") {
      const raw = /[rR]/.test(value[position - 1] ?? '') && !/[A-Za-z0-9_]/.test(value[position - 2] ?? '');
      position = stringEnd(value, position, raw, where);
      continue;
    }
    if (character === '{') depth += 1;
    if (character === '}') {
      depth -= 1;
      if (depth === 0) return position;
    }
    position += 1;
  }
  throw new ExpressionSyntaxError(`unterminated \${...} expression in '${value}' at ${where}`);
}

/** The index just past the string literal opening at `start` (single, double or triple quoted). */
function stringEnd(value: string, start: number, raw: boolean, where: string): number {
  const quote = value[start] ?? '';
  const triple = value.startsWith(quote.repeat(3), start);
  const delimiter = triple ? quote.repeat(3) : quote;
  let position = start + delimiter.length;
  while (position < value.length) {
    if (!raw && value[position] === '\\') {
      position += 2;
      continue;
    }
    if (!triple && value[position] === '\n') break;
    if (value.startsWith(delimiter, position)) return position + delimiter.length;
    position += 1;
  }
  throw new ExpressionSyntaxError(
    `unterminated or invalid \${...} expression in '${value}': unterminated string literal at ${where}`,
  );
}
