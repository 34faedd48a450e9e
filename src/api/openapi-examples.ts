import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution } from '../domain/execution.ts';
import type { TaskOutput } from '../domain/task-output.ts';
import { summarize } from '../domain/task-output.ts';
import { leadRole } from '../engine/manager-agent.ts';
import { describeCrew as crewDescription } from './crew-description.ts';
import { toDeliveryView } from './delivery-view.ts';
import { toExecutionDetail } from './execution-detail.ts';
import { toScheduleView } from './schedule-schemas.ts';
import { toStatusView } from './status-view.ts';
import { cronTimes } from '../service/schedule-times.ts';

const kickoffId = '5f2c1a7e-8b1d-4c2a-9e0f-3d6b7a1c2e4f';
const createdAt = new Date('2026-01-15T09:30:00.000Z');
const finishedAt = new Date('2026-01-15T09:31:12.000Z');
const usage = { promptTokens: 820, completionTokens: 310, totalTokens: 1130, successfulRequests: 2 };

/**
 * An example answer of every route that answers JSON, keyed by `METHOD path` as the API description names them,
 * made for this crew by the same functions that make the real answers, so an example cannot drift from them.
 */
export function responseExamples(crew: CrewDefinition): Record<string, unknown> {
  const outputs = crew.tasks.map((task): TaskOutput => {
    const output = `The ${task.name} output.`;
    return {
      taskId: task.name,
      description: task.description,
      expectedOutput: task.expectedOutput,
      summary: summarize(output),
      agent: leadRole(crew, task, {}) ?? '',
      output,
      outputJson: null,
      usage,
      attempt: 1,
    };
  });
  const last = outputs.at(-1);
  const succeeded: Execution = {
    id: kickoffId,
    state: 'SUCCESS',
    inputs: Object.fromEntries(crew.requiredInputs.map((name) => [name, `<${name}>`])),
    meta: { requestId: 'abc-123' },
    webhooks: { taskUrl: null, stepUrl: null, crewUrl: 'https://example.com/hooks/crew', humanInput: null },
    owner: { tokenId: 'example', userId: null },
    outputs,
    feedback: [],
    pending: null,
    currentTask: null,
    lastStep: null,
    usage,
    result: last?.output ?? null,
    resultJson: null,
    error: null,
    createdAt,
    updatedAt: finishedAt,
    lastEventSequence: 0,
    revision: 1,
    startedAt: createdAt,
    finishedAt,
  };
  const status = toStatusView(succeeded, crew, finishedAt);
  const cancelled = toStatusView(
    { ...succeeded, state: 'REVOKED', outputs: outputs.slice(0, 1), result: null },
    crew,
    finishedAt,
  );
  const schedule = toScheduleView(
    {
      id: '8c1e0f4a-2b7d-4e5f-9a3c-6d2b1e0f7a9c',
      crew: crew.name,
      name: 'weekday mornings',
      cron: '30 8 * * 1-5',
      timezone: 'Europe/Paris',
      inputs: succeeded.inputs,
      meta: null,
      webhooks: succeeded.webhooks,
      paused: false,
      owner: { tokenId: 'example', kind: 'org', userId: null },
      createdAt,
      lastDueAt: null,
    },
    cronTimes('30 8 * * 1-5', 'Europe/Paris'),
    finishedAt,
  );
  return {
    'GET /inputs': { inputs: [...crew.requiredInputs] },
    'GET /versions': {
      served: 2,
      versions: [
        { version: 1, hash: '9f2c…', created_at: createdAt.toISOString(), served: false },
        { version: 2, hash: '41ab…', created_at: finishedAt.toISOString(), served: true },
      ],
    },
    'GET /crews': {
      crews: [
        { name: 'research', kind: 'crew', base_url: '/crews/research', inputs: [...crew.requiredInputs] },
      ],
    },
    'POST /schedules': schedule,
    'GET /schedules': { schedules: [schedule] },
    'GET /schedules/{id}': schedule,
    'POST /schedules/{id}/pause': { ...schedule, paused: true, next_due_at: null },
    'POST /schedules/{id}/resume': schedule,
    'POST /schedules/{id}/run': { kickoff_id: kickoffId },
    'POST /triggers/{name}': { kickoff_id: kickoffId },
    'POST /kickoff': { kickoff_id: kickoffId },
    'GET /status/{kickoffId}': status,
    'GET /{kickoffId}/status': status,
    'POST /resume': { status: 'resumed', message: 'Execution resumed with the next task' },
    'POST /cancel/{kickoffId}': cancelled,
    'POST /stop/{kickoffId}': cancelled,
    'GET /executions': { items: [status], next_cursor: null },
    'GET /executions/{id}': toExecutionDetail(succeeded, crew, [], finishedAt),
    'GET /executions/{id}/deliveries': {
      items: [
        toDeliveryView({
          id: 'msg_2ZxVqk4r',
          kind: 'crew',
          url: 'https://example.com/hooks/crew',
          status: 'delivered',
          createdAt: finishedAt,
          attempts: [{ attempt: 1, at: finishedAt, statusCode: 200, error: null, durationMs: 42 }],
        }),
      ],
    },
    'GET /crew': crewDescription(crew),
    'GET /health/live': { status: 'ok' },
    'GET /health/ready': { status: 'ok', tools: [{ source: 'built-in tools', up: true }] },
  };
}
