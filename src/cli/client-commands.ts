import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { CrewdError } from '../domain/errors.ts';
import { createApiClient } from './api-client.ts';
import type { ApiClient } from './api-client.ts';
import type { CliContext } from './cli-context.ts';
import { parseJsonObject } from './parse-json-object.ts';

interface ConnectionOptions {
  readonly url?: string;
  readonly token?: string;
  readonly wait?: boolean;
}

interface KickoffOptions extends ConnectionOptions {
  readonly inputs: string;
  readonly meta?: string;
}

interface ResumeOptions extends ConnectionOptions {
  readonly task: string;
  readonly feedback: string;
  readonly approve?: boolean;
  readonly reject?: boolean;
}

const pollMs = 1000;

/**
 * `crewd kickoff | status | resume`: a client for a running server. Responses are printed as JSON on stdout;
 * with --wait, what happens meanwhile goes to stderr and only the final status to stdout.
 */
export function registerClientCommands(program: Command, context: CliContext): void {
  const connection = (command: Command): Command =>
    command
      .option('--url <url>', 'the server (default: CREWD_URL or http://127.0.0.1:8000)')
      .option('--token <token>', 'bearer token (default: CREWD_TOKEN)')
      .option('--wait', 'follow the execution until it pauses or ends, then print its status');

  connection(program.command('kickoff').description('start an execution on a running server'))
    .requiredOption('--inputs <json>', 'the crew inputs as a JSON object')
    .option('--meta <json>', 'metadata returned in status and webhooks, as a JSON object')
    .action(async (options: KickoffOptions) => {
      const body = {
        inputs: parseJsonObject(options.inputs, '--inputs'),
        ...(options.meta === undefined ? {} : { meta: parseJsonObject(options.meta, '--meta') }),
      };
      const client = clientFor(options, context);
      const response = await client.post('/kickoff', body);
      await finish(client, response, () => kickoffId(response), options, context);
    });

  connection(program.command('status').description("show an execution's status"))
    .argument('<kickoff-id>', 'the id kickoff returned')
    .action(async (id: string, options: ConnectionOptions) => {
      const client = clientFor(options, context);
      if (options.wait === true) {
        await follow(client, id, context);
        return;
      }
      printJson(context.stdout, await client.get(statusPath(id)));
    });

  connection(program.command('resume').description('answer an execution that waits for human input'))
    .argument('<kickoff-id>', 'the paused execution')
    .requiredOption('--task <task-id>', 'the task waiting for feedback')
    .option('--feedback <text>', 'the feedback for the agent', '')
    .option('--approve', 'accept the output and continue')
    .option('--reject', 'run the task again with the feedback')
    .action(async (id: string, options: ResumeOptions) => {
      if (options.approve === options.reject) {
        throw new CrewdError('VALIDATION_ERROR', 'Pass exactly one of --approve and --reject');
      }
      const client = clientFor(options, context);
      const response = await client.post('/resume', {
        execution_id: id,
        task_id: options.task,
        human_feedback: options.feedback,
        is_approve: options.approve === true,
      });
      await finish(client, response, () => id, options, context);
    });
}

function clientFor(options: ConnectionOptions, context: CliContext): ApiClient {
  return createApiClient({
    url: options.url ?? context.env.CREWD_URL ?? 'http://127.0.0.1:8000',
    token: options.token ?? context.env.CREWD_TOKEN,
  });
}

/** Prints the response, or with --wait shows it on stderr and follows the execution to its next stop. */
async function finish(
  client: ApiClient,
  response: unknown,
  id: () => string,
  options: ConnectionOptions,
  context: CliContext,
): Promise<void> {
  if (options.wait !== true) {
    printJson(context.stdout, response);
    return;
  }
  printJson(context.stderr, response);
  await follow(client, id(), context);
}

/** Polls the status every second until the execution is neither PENDING nor RUNNING, then prints it. */
async function follow(client: ApiClient, id: string, context: CliContext): Promise<void> {
  let shown = '';
  for (;;) {
    const status = (await client.get(statusPath(id))) as Record<string, unknown>;
    const state = String(status.state);
    if (state !== 'PENDING' && state !== 'RUNNING') {
      printJson(context.stdout, status);
      reportEnd(id, status, context);
      return;
    }
    const line = progressLine(state, status);
    if (line !== shown) context.stderr.write(`${line}\n`);
    shown = line;
    await sleep(pollMs);
  }
}

function reportEnd(id: string, status: Record<string, unknown>, context: CliContext): void {
  const pending = status.pending_human_input as { task_id?: unknown } | null | undefined;
  if (status.state === 'PAUSED' && typeof pending?.task_id === 'string') {
    context.stderr.write(
      `${pending.task_id} is waiting for review; answer with: crewd resume ${id} --task ${pending.task_id} ` +
        `--approve (or --reject) --feedback '…'\n`,
    );
  }
  if (status.state === 'FAILED' || status.state === 'REVOKED') {
    const reason = typeof status.error === 'string' ? `: ${status.error}` : '';
    throw new CrewdError('TASK_FAILED', `Execution ${id} ended ${String(status.state)}${reason}`);
  }
}

function progressLine(state: string, status: Record<string, unknown>): string {
  const progress = status.progress as { completed?: unknown; total?: unknown } | undefined;
  const task = typeof status.current_task === 'string' ? ` ${status.current_task}` : '';
  const counts =
    progress === undefined ? '' : ` (${String(progress.completed)}/${String(progress.total)} tasks done)`;
  return `${state}${task}${counts}`;
}

function kickoffId(response: unknown): string {
  const id = (response as { kickoff_id?: unknown } | null)?.kickoff_id;
  if (typeof id !== 'string') throw new CrewdError('INTERNAL', 'The server did not answer with a kickoff_id');
  return id;
}

function statusPath(id: string): string {
  return `/status/${encodeURIComponent(id)}`;
}

function printJson(output: NodeJS.WritableStream, value: unknown): void {
  output.write(`${JSON.stringify(value, null, 2)}\n`);
}
