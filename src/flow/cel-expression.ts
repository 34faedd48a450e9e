import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import type { CelValue } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { toCel } from './cel-values.ts';
import { ExpressionEvaluationError, ExpressionSyntaxError } from './flow-errors.ts';

/** The names an expression may start from: `state` and `outputs` everywhere, `item` inside `each` steps. */
export type CelRoot = 'state' | 'outputs' | 'item';

export const flowRoots: readonly CelRoot[] = ['outputs', 'state'];
export const eachStepRoots: readonly CelRoot[] = ['item', 'outputs', 'state'];

/** A checked CEL expression, ready to evaluate against the flow's data. */
export interface CelExpression {
  readonly source: string;
  /** The CEL value (not yet JSON), so text rendering can still tell an int from a double. */
  evaluate(context: Readonly<Partial<Record<CelRoot, unknown>>>): CelValue;
}

const environment = celEnv();

/**
 * Parses `source` and checks its root identifiers against `roots`, with crewAI's messages naming `where`
 * (`methods.m.do.expr`). Only the root is checked: `state.anything` and `outputs.not_a_method` pass, as in crewAI.
 */
export function compileCel(source: string, where: string, roots: readonly CelRoot[]): CelExpression {
  if (source.trim() === '') {
    throw new ExpressionSyntaxError(
      `empty CEL expression at ${where}. Provide a CEL expression such as state.topic or outputs.step_name.`,
    );
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    const details = error instanceof Error ? error.message : String(error);
    throw new ExpressionSyntaxError(
      `invalid CEL expression at ${where}: '${source}'. Check the CEL syntax. Parser details: ${details}`,
    );
  }
  const unknown = [...rootsOf(parsed.expr, new Set())].filter((name) => !roots.includes(name as CelRoot));
  if (unknown.length > 0) {
    const allowed = [...roots].sort().join(', ');
    throw new ExpressionSyntaxError(
      `unknown CEL root at ${where}: ${[...new Set(unknown)].map((name) => `'${name}'`).join(', ')}; allowed roots: ${allowed}. ` +
        'Reference flow data through one of those roots, for example state.field or outputs.step_name.',
    );
  }
  const program = plan(environment, parsed);
  return {
    source,
    evaluate(context) {
      const bindings: Record<string, ReturnType<typeof toCel>> = {};
      for (const root of roots) if (root in context) bindings[root] = toCel(context[root]);
      const result = program(bindings);
      if (isCelError(result)) {
        throw new ExpressionEvaluationError(
          `failed to evaluate CEL expression '${source}': ${result.message}`,
        );
      }
      return result;
    },
  };
}

/**
 * The free identifiers of an expression. Macros (`all`, `exists`, `map`, `filter`…) are comprehensions after
 * parsing; their loop and accumulator variables are bound, so they are not roots.
 */
function* rootsOf(expr: Expr | undefined, bound: ReadonlySet<string>): Generator<string> {
  if (expr === undefined) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      if (!bound.has(kind.value.name)) yield kind.value.name.split('.')[0] ?? kind.value.name;
      return;
    case 'selectExpr':
      yield* rootsOf(kind.value.operand, bound);
      return;
    case 'callExpr':
      yield* rootsOf(kind.value.target, bound);
      for (const argument of kind.value.args) yield* rootsOf(argument, bound);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) yield* rootsOf(element, bound);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') yield* rootsOf(entry.keyKind.value, bound);
        yield* rootsOf(entry.value, bound);
      }
      return;
    case 'comprehensionExpr': {
      const comprehension = kind.value;
      yield* rootsOf(comprehension.iterRange, bound);
      yield* rootsOf(comprehension.accuInit, bound);
      const inner = new Set([...bound, comprehension.iterVar, comprehension.iterVar2, comprehension.accuVar]);
      yield* rootsOf(comprehension.loopCondition, inner);
      yield* rootsOf(comprehension.loopStep, inner);
      yield* rootsOf(comprehension.result, inner);
      return;
    }
    case 'constExpr':
    case undefined:
      return;
  }
}
