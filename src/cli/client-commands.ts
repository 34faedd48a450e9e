import type { Command } from 'commander';
import { createCrewdClient, CrewdClientError } from '../client/index.ts';
import type {
  CrewdClient,
  ExecutionDetail,
  ExecutionEvent,
  ExecutionState,
  ExecutionStatus,
} from '../client/index.ts';
import { CrewdError } from '../domain/errors.ts';
import type { ErrorCode } from '../domain/errors.ts';
import { executionStates } from '../domain/execution.ts';
import type { CliContext } from './cli-context.ts';
import { parseJsonObject } from './parse-json-object.ts';

export interface ConnectionOptions {
  readonly url?: string;
  readonly token?: string;
}

interface FollowOptions extends ConnectionOptions {
  readonly wait?: boolean;
  readonly json?: boolean;
}

interface WebhookOptions {
  readonly taskWebhook?: string;
  readonly stepWebhook?: string;
  readonly crewWebhook?: string;
}

interface KickoffOptions extends FollowOptions, WebhookOptions {
  readonly inputs: string;
  readonly meta?: string;
}

interface ResumeOptions extends FollowOptions, WebhookOptions {
  readonly sameWebhooks?: boolean;
  readonly task: string;
  readonly feedback: string;
  readonly approve?: boolean;
  readonly reject?: boolean;
}

interface ListOptions extends ConnectionOptions {
  readonly state?: string;
  readonly limit?: string;
  readonly json?: boolean;
}

/**
 * `crewd kickoff | status | resume | cancel | list | pending`: a client for a running server, over the typed
 * client that `crewd/client` exports. Answers are printed on stdout; with --wait, progress goes to stderr.
 */
export function registerClientCommands(program: Command, context: CliContext): void {
  const connection = (command: Command): Command =>
    command
      .option('--url <url>', 'the server (default: CREWD_URL or http://127.0.0.1:8000)')
      .option('--token <token>', 'bearer token (default: CREWD_TOKEN)');
  const following = (command: Command): Command =>
    connection(command)
      .option('--wait', 'follow the execution until it pauses or ends, then print its result')
      .option('--json', 'with --wait, print the whole status body instead of the result');
  const webhooks = (command: Command, leg: string): Command =>
    command
      .option('--task-webhook <url>', `receives each task's output ${leg}`)
      .option('--step-webhook <url>', `receives each agent step ${leg}`)
      .option('--crew-webhook <url>', `receives the end of the execution ${leg}`);

  webhooks(following(program.command('kickoff').description('start an execution on a running server')), '')
    .requiredOption('--inputs <json>', 'the crew inputs as a JSON object')
    .option('--meta <json>', 'metadata returned in status and webhooks, as a JSON object')
    .action(async (options: KickoffOptions) => {
      const client = clientFor(options, context);
      const { kickoff_id: id } = await call(() =>
        client.kickoff({
          inputs: parseJsonObject(options.inputs, '--inputs'),
          ...(options.meta === undefined ? {} : { meta: parseJsonObject(options.meta, '--meta') }),
          ...webhookFields(options),
        }),
      );
      if (options.wait !== true) {
        printJson(context.stdout, { kickoff_id: id });
        return;
      }
      context.stderr.write(`Started ${id}\n`);
      await follow(client, id, options, context);
    });

  following(program.command('status').description("show an execution's status"))
    .argument('<kickoff-id>', 'the id kickoff returned')
    .action(async (id: string, options: FollowOptions) => {
      const client = clientFor(options, context);
      if (options.wait === true) {
        await follow(client, id, { ...options, json: true }, context);
        return;
      }
      printJson(context.stdout, await call(() => client.status(id)));
    });

  webhooks(
    following(program.command('resume').description('answer an execution that waits for human input')),
    "(the interface drops the kickoff's URLs on /resume: repeat them here)",
  )
    .argument('<kickoff-id>', 'the paused execution')
    .requiredOption('--task <task-id>', 'the task waiting for feedback')
    .option('--feedback <text>', 'the feedback for the agent', '')
    .option('--approve', 'accept the output and continue')
    .option('--reject', 'run the task again with the feedback')
    .option(
      '--same-webhooks',
      "repeat the webhooks the execution notifies now (the kickoff's); the flags above win",
    )
    .action(async (id: string, options: ResumeOptions) => {
      if (options.approve === options.reject) {
        throw new CrewdError('VALIDATION_ERROR', 'Pass exactly one of --approve and --reject');
      }
      const client = clientFor(options, context);
      const repeated =
        options.sameWebhooks === true
          ? sameWebhooks((await call(() => client.execution(id))).webhooks, context)
          : {};
      const response = await call(() =>
        client.resume({
          execution_id: id,
          task_id: options.task,
          human_feedback: options.feedback,
          is_approve: options.approve === true,
          ...repeated,
          ...webhookFields(options),
        }),
      );
      if (options.wait !== true) {
        printJson(context.stdout, response);
        return;
      }
      context.stderr.write(`${response.message}\n`);
      await follow(client, id, options, context);
    });

  connection(program.command('cancel').description('cancel an execution (it becomes REVOKED)'))
    .argument('<kickoff-id>', 'the execution to cancel')
    .action(async (id: string, options: ConnectionOptions) => {
      const status = await call(() => clientFor(options, context).cancel(id));
      context.stderr.write(`${id} is ${status.state}\n`);
      printJson(context.stdout, status);
    });

  connection(program.command('list').description('list executions, newest first'))
    .option('--state <state>', `only executions in this state (${executionStates.join(', ')})`)
    .option('--limit <n>', 'how many (1 to 100)', '20')
    .option('--json', 'print the page as JSON')
    .action(async (options: ListOptions) => {
      const state = parseState(options.state);
      await printList(clientFor(options, context), state, options, context);
    });

  connection(program.command('pending').description('list executions waiting for human review'))
    .option('--limit <n>', 'how many (1 to 100)', '20')
    .option('--json', 'print the page as JSON')
    .action(async (options: ListOptions) => {
      await printList(clientFor(options, context), 'PAUSED', options, context);
    });
}

/** The client of the server a command names (`--url`, `--token`, else `CREWD_URL`, `CREWD_TOKEN`). */
export function clientFor(options: ConnectionOptions, context: CliContext): CrewdClient {
  return createCrewdClient({
    url: options.url ?? context.env.CREWD_URL ?? 'http://127.0.0.1:8000',
    token: options.token ?? context.env.CREWD_TOKEN,
  });
}

function webhookFields(options: WebhookOptions) {
  return {
    ...(options.taskWebhook === undefined ? {} : { taskWebhookUrl: options.taskWebhook }),
    ...(options.stepWebhook === undefined ? {} : { stepWebhookUrl: options.stepWebhook }),
    ...(options.crewWebhook === undefined ? {} : { crewWebhookUrl: options.crewWebhook }),
  };
}

/**
 * The leg's webhooks as a resume body repeats them. Those whose credentials the server does not show are left out,
 * with a warning: repeating them without would send notifications unauthenticated.
 */
function sameWebhooks(current: ExecutionDetail['webhooks'], context: CliContext) {
  const { withheld } = current;
  const kept = (field: (typeof withheld)[number]): boolean => {
    if (!withheld.includes(field)) return true;
    context.stderr.write(
      `warning: ${withheldHint[field]} carries credentials the server does not show, so it is not repeated\n`,
    );
    return false;
  };
  const url = (field: 'taskWebhookUrl' | 'stepWebhookUrl' | 'crewWebhookUrl') =>
    current[field] !== null && kept(field) ? { [field]: current[field] } : {};
  const stream = current.webhooks;
  return {
    ...url('taskWebhookUrl'),
    ...url('stepWebhookUrl'),
    ...url('crewWebhookUrl'),
    ...(stream !== null && kept('webhooks')
      ? {
          webhooks: {
            url: stream.url,
            realtime: stream.realtime,
            ...(stream.events === null ? {} : { events: stream.events }),
          },
        }
      : {}),
  };
}

const withheldHint = {
  taskWebhookUrl: 'the task webhook (pass --task-webhook)',
  stepWebhookUrl: 'the step webhook (pass --step-webhook)',
  crewWebhookUrl: 'the crew webhook (pass --crew-webhook)',
  webhooks: 'the event stream (send "webhooks" on /resume yourself)',
} as const;

/** Follows the execution to its next stop, then prints its result (or with --json its whole status). */
async function follow(client: CrewdClient, id: string, options: FollowOptions, context: CliContext) {
  const status = await call(() => client.wait(id, { onEvent: (event) => progress(event, context) }));
  if (options.json === true) printJson(context.stdout, status);
  else printOutcome(status, context);
  reportEnd(id, status, context);
}

function progress(event: ExecutionEvent, context: CliContext): void {
  if (event.type === 'task-start') context.stderr.write(`Running ${event.data.task_id}\n`);
  if (event.type === 'task-end') context.stderr.write(`Finished ${event.data.task_id}\n`);
}

/** The result for people: the final output, or while paused the output waiting for review. */
function printOutcome(status: ExecutionStatus, context: CliContext): void {
  const text = status.state === 'PAUSED' ? status.pending_human_input?.output : status.result;
  if (typeof text === 'string' && status.state !== 'FAILED') context.stdout.write(`${text}\n`);
}

function reportEnd(id: string, status: ExecutionStatus, context: CliContext): void {
  const pending = status.pending_human_input;
  if (status.state === 'PAUSED' && pending !== null) {
    context.stderr.write(
      `${pending.task_id} is waiting for review; answer with: crewd resume ${id} --task ${pending.task_id} ` +
        `--approve (or --reject) --feedback '…'\n`,
    );
  }
  if (status.state === 'FAILED' || status.state === 'REVOKED') {
    const reason = status.error === null ? '' : `: ${status.error}`;
    throw new CrewdError('TASK_FAILED', `Execution ${id} ended ${status.state}${reason}`);
  }
}

async function printList(
  client: CrewdClient,
  state: ExecutionState | undefined,
  options: ListOptions,
  context: CliContext,
): Promise<void> {
  const limit = Number(options.limit ?? '20');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new CrewdError('VALIDATION_ERROR', '--limit must be a whole number from 1 to 100');
  }
  const page = await call(() => client.list({ limit, ...(state === undefined ? {} : { state }) }));
  if (options.json === true) {
    printJson(context.stdout, page);
    return;
  }
  if (page.items.length === 0) {
    context.stderr.write(state === 'PAUSED' ? 'No execution is waiting for review\n' : 'No executions\n');
    return;
  }
  for (const item of page.items) {
    const waiting = item.pending_human_input;
    const what = waiting === null ? (item.current_task ?? item.status) : `waiting on ${waiting.task_id}`;
    context.stdout.write(`${item.kickoff_id}  ${item.state.padEnd(7)}  ${item.created_at}  ${what}\n`);
  }
  if (state === 'PAUSED') {
    context.stderr.write(
      "Answer one with: crewd resume <id> --task <task> --approve (or --reject) --feedback '…'\n",
    );
  }
}

function parseState(value: string | undefined): ExecutionState | undefined {
  if (value === undefined) return undefined;
  const state = value.toUpperCase();
  const known = executionStates.find((candidate) => candidate === state);
  if (known === undefined) {
    throw new CrewdError('VALIDATION_ERROR', `--state must be one of ${executionStates.join(', ')}`);
  }
  return known;
}

/** Runs a client call; its error becomes a CrewdError with a message for the terminal. */
/** Runs a client call, turning its failure into the command's one-line error. */
export async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof CrewdClientError)) throw error;
    throw new CrewdError(codeOf(error), terminalMessage(error), { cause: error });
  }
}

function terminalMessage(error: CrewdClientError): string {
  if (error.status === null) return `${error.message}; is the server running?`;
  const missing = error.details?.missing_inputs;
  const detail = Array.isArray(missing) ? `: ${missing.join(', ')}` : '';
  const hint = error.status === 401 ? ' (pass --token or set CREWD_TOKEN)' : '';
  return `${error.message}${detail}${hint} (HTTP ${error.status})`;
}

const knownCodes: readonly string[] = [
  'VALIDATION_ERROR',
  'MISSING_INPUTS',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'NOT_PENDING_HUMAN_INPUT',
  'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
] satisfies readonly ErrorCode[];

function codeOf(error: CrewdClientError): ErrorCode {
  if (error.status === null) return 'DEPENDENCY_UNAVAILABLE';
  return knownCodes.includes(error.code) ? (error.code as ErrorCode) : 'INTERNAL';
}

function printJson(output: NodeJS.WritableStream, value: unknown): void {
  output.write(`${JSON.stringify(value, null, 2)}\n`);
}
