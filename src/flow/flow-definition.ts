import type { CelExpression } from './cel-expression.ts';
import type { FlowCondition, FlowStateDocument, HumanFeedbackDocument } from './flow-schema.ts';
import type { TemplatedValue } from './templated-value.ts';

/** An agent run as one step: its keys as written, with `input` the only templated field. */
export interface AgentActionDefinition {
  readonly call: 'agent';
  readonly agent: Readonly<Record<string, unknown>>;
  readonly input: TemplatedValue;
}

/** A crew run as one step: inline (`with:`) or from a JSON/JSONC crew file (`from_declaration`). */
export interface CrewActionDefinition {
  readonly call: 'crew';
  readonly source:
    | { readonly kind: 'inline'; readonly crew: Readonly<Record<string, unknown>> }
    | { readonly kind: 'declaration'; readonly path: string };
  /** `with.inputs` (inline crews' defaults), rendered with the action's `inputs` over them. */
  readonly defaultInputs: TemplatedValue | undefined;
  readonly inputs: TemplatedValue | undefined;
}

export interface ExpressionActionDefinition {
  readonly call: 'expression';
  readonly expression: CelExpression;
}

/**
 * A Python action (`code`, `tool`, `script`) kept as written. The loader refuses these unless a host for Python
 * actions is given; the runner hands them to that host.
 */
export interface PythonActionDefinition {
  readonly call: 'code' | 'tool' | 'script';
  readonly document: Readonly<Record<string, unknown>>;
  /** `with:` of `code` and `tool`, templated as crewAI renders it (the callable's keyword arguments). */
  readonly arguments: TemplatedValue | undefined;
}

export type AtomicActionDefinition =
  AgentActionDefinition | CrewActionDefinition | ExpressionActionDefinition | PythonActionDefinition;

export interface EachStepDefinition {
  readonly name: string;
  readonly condition: CelExpression | undefined;
  readonly action: AtomicActionDefinition;
}

export interface EachActionDefinition {
  readonly call: 'each';
  readonly items: CelExpression;
  readonly steps: readonly EachStepDefinition[];
}

export type FlowActionDefinition = AtomicActionDefinition | EachActionDefinition;

export interface HumanFeedbackDefinition {
  readonly message: string;
  /** Outcomes; when non-empty the method routes on the chosen one. */
  readonly emit: readonly string[] | undefined;
  readonly llm: HumanFeedbackDocument['llm'];
  readonly defaultOutcome: string | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface FlowMethodDefinition {
  readonly name: string;
  readonly action: FlowActionDefinition;
  /** `true` for an unconditional start, a condition for a conditional one, undefined for none. */
  readonly start: true | FlowCondition | undefined;
  /** Ignored for start methods, as in crewAI. */
  readonly listen: FlowCondition | undefined;
  readonly router: boolean;
  readonly emit: readonly string[] | undefined;
  readonly humanFeedback: HumanFeedbackDefinition | undefined;
}

/** A loaded, checked `crewai.flow/v1` document. */
export interface FlowDefinition {
  readonly name: string;
  readonly description: string | undefined;
  /** The file it was read from, as messages name it. */
  readonly file: string;
  /** `from_declaration` crew paths are relative to this directory and must stay inside it. */
  readonly sourceDir: string | undefined;
  readonly state: FlowStateDocument | undefined;
  readonly maxMethodCalls: number;
  /**
   * Flow-level `persist` is enabled: a kickoff naming a state id (`inputs.id`, or a fork's `restoreFromStateId`)
   * starts from the latest state saved under it. Method-level `persist` changes nothing (every method is journaled).
   */
  readonly persist: boolean;
  /** In definition order, which is the order crewAI considers listeners in. */
  readonly methods: ReadonlyMap<string, FlowMethodDefinition>;
  /** What crewAI would do that crewd does not (yet), one sentence each; `crewd check` lists them. */
  readonly unhonoured: readonly string[];
}
