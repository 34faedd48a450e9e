import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CrewdError, isCrewdError, MissingInputsError } from '../../domain/errors.ts';
import type { Execution } from '../../domain/execution.ts';
import type { Caller, ExecutionService } from '../../service/execution-service.ts';
import { waitUntilSettled } from '../../service/wait-until-settled.ts';
import type { WaitOptions } from '../../service/wait-until-settled.ts';
import type { CrewDefinition } from '../../domain/crew.ts';
import { kickoffWebhooks } from '../kickoff-webhooks.ts';
import { requestFieldLimits } from '../request-schemas.ts';
import { statusViewSchema } from '../response-schemas.ts';
import { toStatusView } from '../status-view.ts';
import { executionProgress } from './mcp-progress.ts';
import { toolError, toolResult } from './mcp-tool-result.ts';
import {
  cancelToolInput,
  kib,
  kickoffToolInput,
  mcpWaitSeconds,
  resumeToolInput,
  resumeToolOutput,
  statusToolInput,
} from './mcp-tool-schemas.ts';
import type { KickoffExtra, KickoffToolInput } from './mcp-tool-schemas.ts';

/**
 * What the servers of every request share, made once where the route is registered: the kickoff tool's input per
 * crew version (kept while the version is served), and the JSON Schema validator the SDK would otherwise build for
 * each server (it compiles its meta-schemas, about half a millisecond).
 */
export interface CrewMcpShared {
  readonly kickoffInput: (crew: CrewDefinition) => KickoffToolInput;
  readonly jsonSchemaValidator: AjvJsonSchemaValidator;
}

export function createCrewMcpShared(): CrewMcpShared {
  const inputs = new WeakMap<CrewDefinition, KickoffToolInput>();
  return {
    kickoffInput(crew) {
      let input = inputs.get(crew);
      if (input === undefined) {
        input = kickoffToolInput(crew);
        inputs.set(crew, input);
      }
      return input;
    },
    jsonSchemaValidator: new AjvJsonSchemaValidator(),
  };
}

export interface CrewMcpServerOptions {
  readonly service: ExecutionService;
  readonly clock: () => Date;
  /** Whose request this is: every tool acts as this caller, so user tokens reach only their own executions. */
  readonly caller: Caller;
  /**
   * Ends waits early: aborted when crewd shuts down (the tool answers with the execution as it stands), or with the
   * 401 `CrewdError` once the caller's token is revoked (the tool answers that error).
   */
  readonly interrupt: AbortSignal;
  /** Told of tool failures that are crewd's own (status 500 and up); clients get only the contract's message. */
  readonly onServerFault: (error: unknown, status: number) => void;
  readonly shared: CrewMcpShared;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * An MCP server over one crew for one request's caller, with four tools: `kickoff` (the crew's inputs are its
 * arguments, with `meta` and the webhooks of `POST /kickoff`), `status`, `resume` and `cancel`. Executions it starts are ordinary ones: listed, streamed and reviewable
 * everywhere else, and recovered after a restart.
 */
export function createCrewMcpServer(options: CrewMcpServerOptions): McpServer {
  const { service, clock, caller, interrupt, onServerFault, shared } = options;
  const crew = service.crew;
  const server = new McpServer(
    { name: 'crewd', title: crew.name, version: '1.0.0' },
    {
      jsonSchemaValidator: shared.jsonSchemaValidator,
      instructions:
        `Runs the crew "${crew.name}". Call kickoff with its inputs; a paused execution waits for a review that ` +
        'resume answers; status reads an execution at any time.',
    },
  );

  const run = async (work: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await work();
    } catch (error) {
      const { result, status } = toolError(error);
      if (status >= 500) onServerFault(error, status);
      return result;
    }
  };

  // The tasks of the version the execution runs on, whatever version is served now.
  const view = (execution: Execution) => toStatusView(execution, service.crewOf(execution), clock());

  /** Waits for a pause or the end, sending progress notifications when the client asked for them. */
  const settle = async (
    executionId: string,
    seconds: number,
    extra: Extra,
    from: Pick<WaitOptions, 'afterSequence'> = {},
  ): Promise<Execution> => {
    if (seconds === 0) return service.get(executionId, caller);
    const progressToken = extra._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? null
        : executionProgress(crew, (update) => {
            // A client that went away misses the notification; the wait ends with the request.
            extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } })
              .catch(() => undefined);
          });
    const signal = AbortSignal.any([extra.signal, interrupt, AbortSignal.timeout(seconds * 1000)]);
    const waitOptions: WaitOptions =
      progress === null
        ? { ...from, signal }
        : { ...from, signal, onStart: progress.started, onEvent: progress.onEvent };
    const execution = await waitUntilSettled(service, executionId, caller, waitOptions);
    if (isCrewdError(interrupt.reason)) throw interrupt.reason;
    return execution;
  };

  const { schema: kickoffSchema, inputNames, extras } = shared.kickoffInput(crew);
  /** An extra argument's value, or undefined when a crew input took its name. */
  const extraOf = (args: Record<string, unknown>, name: KickoffExtra): unknown =>
    extras.has(name) ? args[name] : undefined;

  server.registerTool(
    'kickoff',
    {
      title: `Run ${crew.name}`,
      description:
        `Starts an execution of "${crew.name}" (${crew.inputFields === undefined ? 'tasks' : 'flow methods'}: ${crew.tasks.map((task) => task.name).join(', ')}) ` +
        'and waits for it to finish or pause for review. Answers its status: on SUCCESS the result; on PAUSED ' +
        'pending_human_input (task_id, output) to answer with resume; otherwise kickoff_id and state to follow ' +
        'with status. meta and the webhook arguments are those of POST /kickoff.',
      inputSchema: kickoffSchema,
      outputSchema: statusViewSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (args: Record<string, unknown>, extra) =>
      run(async () => {
        // A crew's placeholders all need text; a flow's typed fields are checked by the flow, as at POST /kickoff.
        const fields = crew.inputFields;
        if (fields === undefined) {
          const missing = inputNames.filter((name) => typeof args[name] !== 'string');
          if (missing.length > 0) throw new MissingInputsError(missing);
        }
        const inputs: Record<string, unknown> = {};
        for (const name of inputNames) if (args[name] !== undefined) inputs[name] = args[name];
        if (jsonBytes(inputs) > requestFieldLimits.inputsBytes) {
          throw new CrewdError(
            'VALIDATION_ERROR',
            `inputs must be at most ${kib(requestFieldLimits.inputsBytes)} as JSON`,
          );
        }
        // Checked by the same schemas as POST /kickoff's body before the tool runs.
        const webhookFields = {
          taskWebhookUrl: extraOf(args, 'taskWebhookUrl'),
          stepWebhookUrl: extraOf(args, 'stepWebhookUrl'),
          crewWebhookUrl: extraOf(args, 'crewWebhookUrl'),
          humanInputWebhook: extraOf(args, 'humanInputWebhook'),
          webhooks: extraOf(args, 'webhooks'),
        } as Parameters<typeof kickoffWebhooks>[0];
        const meta = (extraOf(args, 'meta') ?? null) as Record<string, unknown> | null;
        const { kickoffId } = await service.kickoff({
          inputs,
          meta,
          webhooks: kickoffWebhooks(webhookFields),
          idempotencyKey: null,
          caller,
        });
        const seconds = waitSeconds(extraOf(args, 'wait_seconds'));
        // A new execution's whole log is short: progress then tells of every task from the first.
        return toolResult(view(await settle(kickoffId, seconds, extra, { afterSequence: 0 })));
      }),
  );

  server.registerTool(
    'status',
    {
      title: 'Execution status',
      description:
        "An execution's status, as GET /status/{kickoff_id} answers it: state, result, progress, task outputs " +
        'and the pending review; with wait_seconds, once it finishes or pauses (or the wait ends).',
      inputSchema: statusToolInput,
      outputSchema: statusViewSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ kickoff_id, wait_seconds }, extra) =>
      run(async () => toolResult(view(await settle(kickoff_id, wait_seconds ?? 0, extra)))),
  );

  server.registerTool(
    'resume',
    {
      title: 'Answer a review',
      description:
        'Answers the review a PAUSED execution waits for (its pending_human_input), as POST /resume does: ' +
        'is_approve true continues with the next task, false runs the task again with the feedback. Then ' +
        'waits like kickoff and answers the execution as it stands.',
      inputSchema: resumeToolInput,
      outputSchema: resumeToolOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (args, extra) =>
      run(async () => {
        const result = await service.resume({
          executionId: args.execution_id,
          taskId: args.task_id,
          feedback: args.human_feedback,
          approve: args.is_approve,
          taskUrl: null,
          stepUrl: null,
          crewUrl: null,
          humanInput: null,
          events: null,
          caller,
        });
        const execution = await settle(args.execution_id, waitSeconds(args.wait_seconds), extra);
        return toolResult({ status: result.status, message: result.message, execution: view(execution) });
      }),
  );

  server.registerTool(
    'cancel',
    {
      title: 'Cancel an execution',
      description:
        'Cancels an execution as POST /cancel/{kickoff_id} does: one not finished becomes REVOKED, a finished one ' +
        'stays as it is. Answers its status.',
      inputSchema: cancelToolInput,
      outputSchema: statusViewSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ kickoff_id }) => run(async () => toolResult(view(await service.cancel(kickoff_id, caller)))),
  );

  return server;
}

/** The wait a tool was given, or the default. */
function waitSeconds(value: unknown): number {
  return typeof value === 'number' ? value : mcpWaitSeconds.default;
}
