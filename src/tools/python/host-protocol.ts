import { z } from 'zod';

/** The host's first line: what runs the tools. */
export const readyMessage = z.object({
  type: z.literal('ready'),
  python: z.string(),
  executable: z.string(),
  /** `project`: the project's own crewAI; `crewd`: crewd's stand-in for `crewai.tools`. */
  crewai: z.enum(['project', 'crewd']),
  pydantic: z.string().nullable(),
});
export type ReadyMessage = z.infer<typeof readyMessage>;

/** An answer to one request, by the request's id. */
export const answerMessage = z.union([
  z.object({
    id: z.number(),
    ok: z.literal(true),
    /** A call's result. */
    result: z.string().optional(),
    /** A built tool: crewAI's name, description and the JSON Schema of its arguments. */
    name: z.string().optional(),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    /** A flow action's result (any JSON), or a state class's JSON Schema. */
    value: z.unknown().optional(),
    /** The flow state a flow action left, when it could change it. */
    state: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    id: z.number(),
    ok: z.literal(false),
    /** The Python error as `Type: message`. */
    error: z.string(),
    /** A `crewai_tools` tool the project's Python does not have. */
    absent: z.boolean().optional(),
    /** The innermost place in the project's files the error passed through. */
    file: z.string().optional(),
    line: z.number().optional(),
  }),
]);
export type Answer = z.infer<typeof answerMessage>;

/** Builds one tool instance under `key`. */
export interface BuildRequest {
  readonly op: 'build';
  readonly key: string;
  readonly module: string;
  readonly attribute: string;
  readonly kind: 'class' | 'function';
  readonly args: readonly unknown[];
  readonly kwargs: Readonly<Record<string, unknown>>;
  readonly builtin: boolean;
}

/** Runs the instance `key` with the model's arguments. */
export interface CallRequest {
  readonly op: 'call';
  readonly key: string;
  readonly input: unknown;
}

/**
 * A crewAI flow's Python part (python/crewd_flow_actions.py): `flow-code` calls `ref` (`module:qualname`) with
 * `kwargs` (or the trigger's `input` when there are none), `flow-tool` builds the tool class `ref` and runs it with
 * `kwargs`, `flow-script` runs `code`, `flow-state-schema` answers the JSON Schema of the Pydantic class `ref`.
 * `state` is the flow's state, built as `stateModel` (a Pydantic class ref) when the flow declares one.
 */
export interface FlowActionRequest {
  readonly op: 'flow-code' | 'flow-tool' | 'flow-script' | 'flow-state-schema';
  readonly flow?: string;
  readonly ref?: string;
  readonly code?: string;
  readonly kwargs?: unknown;
  readonly input?: unknown;
  readonly item?: unknown;
  readonly outputs?: unknown;
  readonly state?: unknown;
  readonly stateModel?: string | null;
}

export type HostRequest = BuildRequest | CallRequest | FlowActionRequest;
