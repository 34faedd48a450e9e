import type { Artifact, Message, Part, Task, TaskState } from '@a2a-js/sdk';
import type { Execution, ExecutionState } from '../domain/execution.ts';
import { a2aSdk } from './a2a-sdk.ts';

/*
 * An execution seen as an A2A task (protocol 1.0 objects; the SDK translates them for 0.3 clients). The task id is
 * the kickoff id, so the task is the execution: listed, streamed and reviewed like any other.
 */

let taskStates: Record<ExecutionState, TaskState> | undefined;

function stateByExecutionState(): Record<ExecutionState, TaskState> {
  const { TaskState } = a2aSdk();
  return (taskStates ??= {
    PENDING: TaskState.TASK_STATE_SUBMITTED,
    RUNNING: TaskState.TASK_STATE_WORKING,
    PAUSED: TaskState.TASK_STATE_INPUT_REQUIRED,
    SUCCESS: TaskState.TASK_STATE_COMPLETED,
    FAILED: TaskState.TASK_STATE_FAILED,
    REVOKED: TaskState.TASK_STATE_CANCELED,
  });
}

export function a2aStateOf(state: ExecutionState): TaskState {
  return stateByExecutionState()[state];
}

/** The execution state a task state stands for; null for the task states no execution is ever in. */
export function executionStateOf(state: TaskState): ExecutionState | null {
  const states = stateByExecutionState();
  const found = (Object.keys(states) as ExecutionState[]).find((each) => states[each] === state);
  return found ?? null;
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

export function dataPart(value: Record<string, unknown>): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

export function agentMessage(messageId: string, taskId: string, parts: Part[]): Message {
  return {
    messageId,
    contextId: taskId,
    taskId,
    role: a2aSdk().Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The status message: the pending review (task and output) while paused, the error when failed. */
function statusMessage(execution: Execution): Message | undefined {
  const { pending } = execution;
  if (execution.state === 'PAUSED' && pending !== null) {
    const review = {
      task_id: pending.taskId,
      attempt: pending.attempt,
      output: pending.output.output,
      output_json: pending.output.outputJson,
    };
    return agentMessage(`${execution.id}-review-${pending.taskId}-${pending.attempt}`, execution.id, [
      textPart(pending.output.output),
      dataPart(review),
    ]);
  }
  if (execution.state === 'FAILED' && execution.error !== null) {
    return agentMessage(`${execution.id}-error`, execution.id, [textPart(execution.error)]);
  }
  return undefined;
}

/** The final task's output: text, and the structured result as a data part when there is one. */
export function resultArtifact(execution: Execution): Artifact | undefined {
  if (execution.state !== 'SUCCESS' || execution.result === null) return undefined;
  return {
    artifactId: 'result',
    name: 'result',
    description: "The crew's result: the final task's output",
    parts: [
      textPart(execution.result),
      ...(execution.resultJson === null ? [] : [dataPart(execution.resultJson)]),
    ],
    metadata: undefined,
    extensions: [],
  };
}

/** The execution as an A2A task; `contextId` is the task id, as every task here starts its own conversation. */
export function a2aTaskOf(execution: Execution): Task {
  const artifact = resultArtifact(execution);
  return {
    id: execution.id,
    contextId: execution.id,
    status: {
      state: a2aStateOf(execution.state),
      message: statusMessage(execution),
      timestamp: execution.updatedAt.toISOString(),
    },
    artifacts: artifact === undefined ? [] : [artifact],
    history: [],
    metadata: { crewd_state: execution.state },
  };
}
