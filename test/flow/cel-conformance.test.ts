import { celEnv, isCelError, isCelList, isCelMap, isCelUint, parse, plan } from '@bufbuild/cel';
import type { CelValue } from '@bufbuild/cel';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { getConformanceSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import type { IncrementalTest } from '@bufbuild/cel-spec/testdata/tests.js';
import { describe, expect, it } from 'vitest';

/**
 * The parts of CEL flows rely on (literals, arithmetic, comparisons, strings, lists, maps, has(), macros, logic,
 * conversions), checked against the CEL specification's own conformance cases, as @bufbuild/cel evaluates them
 * for flows: the default environment, no declarations, no type checking (cel-python's way).
 */
const featuresFlowsUse: Record<string, readonly string[]> = {
  basic: ['self_eval_zeroish', 'self_eval_nonzeroish'],
  comparisons: [
    'eq_literal',
    'ne_literal',
    'lt_literal',
    'gt_literal',
    'lte_literal',
    'gte_literal',
    'in_list_literal',
    'in_map_literal',
  ],
  conversions: ['int', 'double', 'string', 'bool'],
  fields: ['map_fields', 'map_has', 'in'],
  fp_math: ['fp_math'],
  integer_math: ['int64_math'],
  lists: ['concatenation', 'index', 'in', 'size'],
  logic: ['conditional', 'AND', 'OR', 'NOT'],
  macros: ['exists', 'all', 'exists_one', 'map', 'filter', 'nested'],
  string: ['size', 'starts_with', 'ends_with', 'matches', 'concatenation', 'contains'],
};

/**
 * Cases whose expected result names a CEL type value (`type(x) == int`) or needs declarations: flows' expressions
 * compare data, never types, and declare nothing.
 */
function applies(test: IncrementalTest): boolean {
  const original = test.original;
  if (original.typeEnv.length > 0 || Object.keys(original.bindings).length > 0 || original.container !== '')
    return false;
  if (original.resultMatcher.case === 'value' && original.resultMatcher.value.kind.case === 'typeValue')
    return false;
  return original.resultMatcher.case === 'value' || original.resultMatcher.case === 'evalError';
}

/** A CEL value and an expected Value in one comparable form, keeping int, uint and double apart. */
type Comparable =
  | { int: string }
  | { uint: string }
  | { double: number | string }
  | string
  | boolean
  | null
  | Comparable[]
  | { map: [Comparable, Comparable][] }
  | { bytes: string };

function ofCel(value: CelValue): Comparable {
  if (typeof value === 'bigint') return { int: value.toString() };
  if (typeof value === 'number') return { double: Number.isNaN(value) ? 'NaN' : value };
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (isCelUint(value)) return { uint: value.value.toString() };
  if (isCelList(value)) return Array.from(value, (item) => ofCel(item));
  if (isCelMap(value))
    return {
      map: Array.from(
        value.entries(),
        ([key, item]) => [ofCel(key as CelValue), ofCel(item)] as [Comparable, Comparable],
      ),
    };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('hex') };
  return { map: [] };
}

function ofExpected(value: Value): Comparable {
  const kind = value.kind;
  switch (kind.case) {
    case 'int64Value':
      return { int: kind.value.toString() };
    case 'uint64Value':
      return { uint: kind.value.toString() };
    case 'doubleValue':
      return { double: Number.isNaN(kind.value) ? 'NaN' : kind.value };
    case 'stringValue':
    case 'boolValue':
      return kind.value;
    case 'nullValue':
      return null;
    case 'bytesValue':
      return { bytes: Buffer.from(kind.value).toString('hex') };
    case 'listValue':
      return kind.value.values.map(ofExpected);
    case 'mapValue':
      return {
        map: kind.value.entries.map(
          (entry) => [ofExpected(entry.key!), ofExpected(entry.value!)] as [Comparable, Comparable],
        ),
      };
    case 'enumValue':
    case 'objectValue':
    case 'typeValue':
    case undefined:
      return { map: [[`unsupported ${String(kind.case)}`, null]] };
  }
}

const sortMaps = (value: Comparable): Comparable => {
  if (Array.isArray(value)) return value.map(sortMaps);
  if (value !== null && typeof value === 'object' && 'map' in value) {
    return {
      map: value.map
        .map(([key, item]) => [sortMaps(key), sortMaps(item)] as [Comparable, Comparable])
        .sort((a, b) => JSON.stringify(a[0]).localeCompare(JSON.stringify(b[0]))),
    };
  }
  return value;
};

const environment = celEnv();
const conformance = getConformanceSuite();

describe('CEL conformance of the features flows use', () => {
  for (const [suiteName, sections] of Object.entries(featuresFlowsUse)) {
    const suite = conformance.suites.find((candidate) => candidate.name === suiteName);
    for (const sectionName of sections) {
      const section = suite?.suites.find((candidate) => candidate.name === sectionName);
      const tests = (section?.tests ?? []).filter(applies);
      it(`${suiteName}/${sectionName}: ${tests.length} cases`, () => {
        expect(tests.length).toBeGreaterThan(0);
        for (const test of tests) {
          const matcher = test.original.resultMatcher;
          let result: unknown;
          try {
            result = plan(environment, parse(test.original.expr))();
          } catch (error) {
            result = error;
          }
          if (matcher.case === 'evalError') {
            expect(
              isCelError(result) || result instanceof Error,
              `${test.name}: ${test.original.expr} fails`,
            ).toBe(true);
          } else if (matcher.case === 'value') {
            expect(isCelError(result), `${test.name}: ${test.original.expr} evaluates`).toBe(false);
            expect(sortMaps(ofCel(result as CelValue)), `${test.name}: ${test.original.expr}`).toEqual(
              sortMaps(ofExpected(matcher.value)),
            );
          }
        }
      });
    }
  }
});
