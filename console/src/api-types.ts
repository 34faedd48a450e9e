/** The API's answers as the console reads them (see /openapi.json for the full shapes). */

export type ExecutionState = 'PENDING' | 'RUNNING' | 'PAUSED' | 'SUCCESS' | 'FAILED' | 'REVOKED';
export const executionStates: readonly ExecutionState[] = [
  'PENDING',
  'RUNNING',
  'PAUSED',
  'SUCCESS',
  'FAILED',
  'REVOKED',
];

export function isFinished(state: ExecutionState): boolean {
  return state === 'SUCCESS' || state === 'FAILED' || state === 'REVOKED';
}

export interface TaskPayload {
  readonly task_id: string;
  readonly name: string;
  readonly description: string;
  readonly agent: string;
  readonly output: string;
  readonly output_json: Record<string, unknown> | null;
}

/** A file a task's `output_file` saved; `url` needs the same bearer token as the API. */
export interface OutputFile {
  readonly task_id: string;
  readonly path: string;
  readonly size: number;
  readonly url: string;
}

export interface StatusView {
  readonly kickoff_id: string;
  readonly state: ExecutionState;
  readonly status: string;
  readonly result: string | null;
  readonly result_json: Record<string, unknown> | null;
  readonly error: string | null;
  readonly current_task: string | null;
  readonly progress: {
    readonly completed: number;
    readonly total: number;
    readonly current_agent: string | null;
  };
  readonly tasks: readonly TaskPayload[];
  readonly output_files: readonly OutputFile[];
  readonly pending_human_input: {
    readonly task_id: string;
    readonly output: string;
    readonly attempt: number;
  } | null;
  readonly usage_metrics: { readonly total_tokens: number };
  readonly execution_time: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly meta: Record<string, unknown> | null;
}

export interface Feedback {
  readonly task_id: string;
  readonly attempt: number;
  readonly feedback: string;
  readonly approved: boolean;
}

export interface TimelineEntry {
  readonly task_id: string;
  readonly agent: string;
  readonly attempt: number;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly total_tokens: number | null;
}

export interface ExecutionDetail extends StatusView {
  readonly inputs: Record<string, unknown>;
  readonly feedback: readonly Feedback[];
  readonly timeline: readonly TimelineEntry[];
  readonly last_event_id: number;
}

export interface ExecutionPage {
  readonly items: readonly StatusView[];
  readonly next_cursor: string | null;
}

export interface Delivery {
  readonly id: string;
  readonly kind: string;
  readonly url: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly created_at: string;
  readonly attempts: readonly {
    readonly attempt: number;
    readonly at: string;
    readonly status_code: number | null;
    readonly error: string | null;
    readonly duration_ms: number;
  }[];
}

export interface CrewDescription {
  readonly name: string;
  readonly process: string;
  readonly agents: readonly { readonly name: string; readonly role: string; readonly model: string | null }[];
  readonly tasks: readonly {
    readonly name: string;
    /** null when a hierarchical crew's manager leads the task alone. */
    readonly agent: string | null;
    readonly human_input: boolean;
    readonly output_format: string;
  }[];
  readonly inputs: readonly string[];
}

export interface StepPayload {
  readonly task_id: string;
  readonly agent: string;
  readonly thought: string;
  readonly tool: string | null;
  readonly tool_input: unknown;
  readonly result: string;
}
