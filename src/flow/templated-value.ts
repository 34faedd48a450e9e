import type { CelRoot } from './cel-expression.ts';
import type { JsonValue } from './cel-values.ts';
import { isTemplate, parseTemplate, renderTemplate } from './template.ts';
import type { Template } from './template.ts';

/** A value whose strings may hold `${…}` templates, checked once at load, rendered at run time. */
export type TemplatedValue =
  | { readonly kind: 'template'; readonly template: Template }
  | { readonly kind: 'list'; readonly items: readonly TemplatedValue[] }
  | { readonly kind: 'map'; readonly entries: readonly (readonly [string, TemplatedValue])[] }
  | { readonly kind: 'plain'; readonly value: unknown };

/** Compiles every string of `value`, recursing into maps and lists; `where` grows with each key (`with.key`). */
export function compileTemplated(value: unknown, where: string, roots: readonly CelRoot[]): TemplatedValue {
  if (typeof value === 'string') {
    return isTemplate(value)
      ? { kind: 'template', template: parseTemplate(value, where, roots) }
      : { kind: 'plain', value };
  }
  if (Array.isArray(value)) {
    return {
      kind: 'list',
      items: value.map((item, index) => compileTemplated(item, `${where}[${index}]`, roots)),
    };
  }
  if (value !== null && typeof value === 'object') {
    return {
      kind: 'map',
      entries: Object.entries(value).map(([key, item]) => [
        key,
        compileTemplated(item, `${where}.${key}`, roots),
      ]),
    };
  }
  return { kind: 'plain', value };
}

/** Renders a compiled value against the flow's data. */
export function renderTemplated(
  value: TemplatedValue,
  context: Readonly<Partial<Record<CelRoot, unknown>>>,
): JsonValue {
  switch (value.kind) {
    case 'template':
      return renderTemplate(value.template, context);
    case 'list':
      return value.items.map((item) => renderTemplated(item, context));
    case 'map':
      return Object.fromEntries(value.entries.map(([key, item]) => [key, renderTemplated(item, context)]));
    case 'plain':
      return value.value as JsonValue;
  }
}
