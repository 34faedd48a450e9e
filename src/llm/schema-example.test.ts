import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../domain/crew.ts';
import { schemaExample } from './schema-example.ts';

const byPath = (path: string): string => `text at ${path || 'root'}`;

function valid(schema: JsonSchema, value: unknown): boolean {
  return new Ajv({ strict: false, allErrors: true }).validate(schema, value);
}

describe('schema example', () => {
  it('fills every listed and required property, nested objects and arrays included', () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        sections: {
          type: 'array',
          items: {
            type: 'object',
            properties: { heading: { type: 'string' }, words: { type: 'integer', minimum: 50 } },
            required: ['heading', 'words'],
          },
        },
        meta: { type: 'object', properties: { draft: { type: 'boolean' }, rating: { type: 'number' } } },
      },
      required: ['title', 'sections', 'meta', 'extra'],
    };

    const value = schemaExample(schema, byPath);

    expect(value).toEqual({
      title: 'text at title',
      sections: [{ heading: 'text at sections[0].heading', words: 50 }],
      meta: { draft: true, rating: 0 },
      extra: 'text at extra',
    });
    expect(valid(schema, value)).toBe(true);
  });

  it('keeps within bounds, enums, constants, nullable types, unions, allOf and local references', () => {
    const schema = {
      type: 'object',
      $defs: {
        point: {
          type: 'object',
          properties: { x: { type: 'number', exclusiveMinimum: 2 } },
          required: ['x'],
        },
      },
      properties: {
        short: { type: 'string', maxLength: 5 },
        long: { type: 'string', minLength: 40 },
        level: { enum: ['low', 'high'] },
        kind: { const: 'brief' },
        note: { type: ['null', 'string'] },
        either: { anyOf: [{ type: 'null' }, { type: 'integer', maximum: -3 }] },
        both: { allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { required: ['b'] }] },
        where: { $ref: '#/$defs/point' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2, uniqueItems: true },
        none: { type: 'array', maxItems: 0 },
        between: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      },
      additionalProperties: false,
    };

    const value = schemaExample(schema, byPath) as Record<string, unknown>;

    expect(valid(schema, value)).toBe(true);
    expect(value.short).toBe('text ');
    expect(value.level).toBe('low');
    expect(value.kind).toBe('brief');
    expect(value.note).toBe('text at note');
    expect(value.either).toBe(-3);
    expect(value.both).toEqual({ a: 'text at both.a', b: 'text at both.b' });
    expect(value.where).toEqual({ x: 3 });
    expect(value.none).toEqual([]);
  });

  it('stops at a reference to itself instead of recursing for ever', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, child: { $ref: '#' } },
      required: ['name'],
    };

    expect(valid(schema, schemaExample(schema, byPath))).toBe(true);
  });

  it('answers a schema that names no type with text', () => {
    expect(schemaExample({}, byPath)).toBe('text at root');
  });
});
