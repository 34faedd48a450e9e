import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { withProjectEnv } from '../crew/project-env.ts';
import { CrewdError } from '../domain/errors.ts';
import type { EngineEvent } from '../domain/events.ts';
import { addUsage, emptyUsage } from '../domain/usage.ts';
import type { JsonValue } from '../flow/cel-values.ts';
import type { CrewRun } from '../flow/flow-action-context.ts';
import { checkFlowInputs } from '../flow/flow-state.ts';
import { openFlowRuntime } from '../flow/open-flow-runtime.ts';
import type { FlowRuntime } from '../flow/open-flow-runtime.ts';
import { MemoryFlowJournal } from '../flow/memory-flow-journal.ts';
import { runFlow } from '../flow/run-flow.ts';
import type { FlowOutcome } from '../flow/run-flow.ts';
import { defaultDatabasePath } from '../config.ts';
import { crewdStatePaths, workspaceRoot } from '../workspace/execution-workspace.ts';
import type { CliContext } from './cli-context.ts';
import { askFlowReview } from './flow-review-prompt.ts';
import { lazyLineSource } from './line-source.ts';
import { parseJsonObject } from './parse-json-object.ts';

export interface RunFlowOptions {
  readonly inputs: string;
  readonly model?: string;
  readonly outputDir?: string;
  readonly allowPartial?: boolean;
  readonly record?: string;
  readonly feedbackFile?: string;
}

/**
 * `crewd run <flow>`: runs a flow to the end in this process. Each `human_feedback` pause shows the method's output
 * and asks for feedback (askFlowReview: an outcome, free text, empty for the default; `reject: …` runs a method
 * without `emit` again); the result goes to stdout, progress to stderr.
 */
export async function runFlowInTerminal(
  target: string,
  options: RunFlowOptions,
  context: CliContext,
): Promise<void> {
  const { stderr } = context;
  const warn = (message: string): void => void stderr.write(`warning: ${message}\n`);
  const targetDir = (await stat(target)).isDirectory() ? target : path.dirname(target);
  const env = await withProjectEnv(path.resolve(targetDir), context.env);
  const runtime = await openFlowRuntime({
    target,
    env,
    warn,
    tools: {
      workspaceRoot: workspaceRoot(defaultDatabasePath),
      crewdState: crewdStatePaths(defaultDatabasePath),
    },
    recordFile: options.record,
  });
  try {
    await runOpenedFlow(runtime, env, options, context, warn);
  } finally {
    await runtime.close();
  }
}

async function runOpenedFlow(
  runtime: FlowRuntime,
  env: Readonly<Record<string, string | undefined>>,
  options: RunFlowOptions,
  context: CliContext,
  warn: (message: string) => void,
): Promise<void> {
  const { stderr, stdout } = context;
  const { definition } = runtime;
  for (const [flag, given] of [
    ['--model', options.model],
    ['--output-dir', options.outputDir],
    ['--allow-partial', options.allowPartial],
  ] as const) {
    if (given !== undefined) warn(`${flag} is not applied to flows yet`);
  }
  const inputs = parseJsonObject(options.inputs, '--inputs');
  const check = checkFlowInputs(definition, inputs);
  if (check.missing.length > 0 || check.unknown.length > 0 || check.invalid.length > 0) {
    const problems = [
      ...check.missing.map((name) => `missing required input '${name}'`),
      ...check.unknown.map((name) => `unknown input '${name}' (not in the flow's state schema)`),
      ...check.invalid.map((problem) => `invalid input '${problem.field}': ${problem.message}`),
    ];
    throw new CrewdError('MISSING_INPUTS', `The flow's inputs do not fit its state: ${problems.join('; ')}`);
  }
  const scripted = options.feedbackFile === undefined ? undefined : await readLines(options.feedbackFile);
  const lines = lazyLineSource(scripted, context.stdin, stderr);
  const lineSource = lines.open;
  const journal = new MemoryFlowJournal();
  let usage = emptyUsage;
  const dependencies = {
    models: runtime.models,
    tools: runtime.tools,
    ...(runtime.pythonActions === undefined ? {} : { pythonActions: runtime.pythonActions }),
    defaultModel: env.MODEL === '' ? undefined : env.MODEL,
    executionId: randomUUID(),
    onWarning: warn,
    onEngineEvent: (_run: CrewRun, event: EngineEvent) => {
      if (event.type === 'model-call-end') usage = addUsage(usage, event.usage);
    },
  };
  const onEvent = (event: { type: string; method: string }): void => {
    if (event.type === 'method-start') stderr.write(`▸ ${event.method}\n`);
  };
  try {
    let outcome: FlowOutcome = await runFlow({ definition, journal, dependencies, inputs, onEvent, warn });
    // A rejected review runs the method again: its next review is the next attempt.
    let attempt = 1;
    while (outcome.status === 'paused') {
      const review = {
        method: outcome.method,
        output: textOf(outcome.output),
        message: outcome.message,
        attempt,
      };
      const answer = await askFlowReview(definition, review, lineSource(), stderr);
      attempt = answer.rejected ? attempt + 1 : 1;
      outcome = await runFlow({
        definition,
        journal,
        dependencies,
        feedback: answer.feedback,
        rejected: answer.rejected,
        onEvent,
        warn,
      });
    }
    stdout.write(`${textOf(outcome.result).trim()}\n`);
    stderr.write(
      `\nToken usage: ${usage.totalTokens} total (${usage.promptTokens} prompt, ${usage.completionTokens} completion) over ${usage.successfulRequests} model calls\n`,
    );
  } finally {
    lines.close();
  }
}

/** crewAI's CLI prints a result's `raw` when it has one, a string as it is, anything else as JSON. */
function textOf(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.raw === 'string')
    return value.raw;
  return JSON.stringify(value, null, 2);
}

async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split(/\r?\n/);
  } catch {
    throw new CrewdError('VALIDATION_ERROR', `Cannot read the feedback file ${file}`);
  }
}
