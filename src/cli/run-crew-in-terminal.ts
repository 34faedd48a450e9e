import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkInputs } from '../crew/placeholders.ts';
import { withProjectEnv } from '../crew/project-env.ts';
import type { CrewDefinition, CrewInputs } from '../domain/crew.ts';
import { CrewdError, MissingInputsError } from '../domain/errors.ts';
import type { TokenUsage } from '../domain/usage.ts';
import type { OutputFiles } from '../engine/output-files.ts';
import { defaultDatabasePath } from '../config.ts';
import { openCrewRuntime, type CrewRuntime } from '../runtime/crew-runtime.ts';
import { crewdStatePaths, workspaceRoot } from '../workspace/execution-workspace.ts';
import { WorkspaceFiles } from '../workspace/workspace-files.ts';
import type { CliContext } from './cli-context.ts';
import { lazyLineSource } from './line-source.ts';
import { withModel } from './override-model.ts';
import { parseJsonObject } from './parse-json-object.ts';
import { promptReviewer } from './review-prompt.ts';
import { createRunProgress } from './run-progress.ts';
import { runToCompletion } from './run-to-completion.ts';

export interface RunOptions {
  readonly crew?: string;
  readonly allowPartial?: boolean;
  readonly inputs: string;
  readonly model?: string;
  readonly record?: string;
  readonly feedbackFile?: string;
  /** Where output files go; the current directory when absent. */
  readonly outputDir?: string;
}

/**
 * Runs a crew to the end in this process. Progress and reviews go to stderr and the final output to stdout, so
 * `crewd run … > report.md` keeps just the result.
 */
export async function runCrewInTerminal(
  crewDir: string,
  options: RunOptions,
  context: CliContext,
): Promise<void> {
  const { stderr } = context;
  const env = await withProjectEnv(crewDir, context.env);
  const inputs = parseJsonObject(options.inputs, '--inputs');
  // Read up front, so a wrong path fails before any model is paid for.
  const scripted = options.feedbackFile === undefined ? undefined : await readLines(options.feedbackFile);
  const warn = (message: string): void => {
    stderr.write(`warning: ${message}\n`);
  };
  const runtime = await openCrewRuntime({
    crewDir,
    ...(options.crew === undefined ? {} : { crewName: options.crew }),
    env,
    warn,
    allowPartial: options.allowPartial ?? false,
    defaultModel: env.MODEL === '' ? undefined : env.MODEL,
    prepare: (loaded) => {
      checkRunInputs(loaded, inputs);
      return options.model === undefined ? loaded : withModel(loaded, options.model);
    },
    recordFile: options.record,
    tools: { workspaceRoot: workspaceRoot(defaultDatabasePath), crewdState: crewdStatePaths(defaultDatabasePath) },
    check: true,
  });
  try {
    const outputDir = path.resolve(options.outputDir ?? '.');
    const outputFiles = new WorkspaceFiles(() => outputDir);
    await runOpenCrew(runtime, inputs, { ...context, scripted, outputFiles });
  } finally {
    await runtime.close();
  }
}

interface OpenCrew extends CliContext {
  readonly scripted: readonly string[] | undefined;
  readonly outputFiles: OutputFiles;
}

async function runOpenCrew(runtime: CrewRuntime, inputs: CrewInputs, context: OpenCrew): Promise<void> {
  const { stderr, stdout, scripted } = context;
  const { crew, models, tools, defaultModel } = runtime;
  const lines = lazyLineSource(scripted, context.stdin, stderr);
  const lineSource = lines.open;
  const progress = createRunProgress(stderr);
  const reviewer = promptReviewer(lineSource, stderr);
  const controller = new AbortController();
  const interrupt = (): void => controller.abort(new CrewdError('CANCELLED', 'Interrupted'));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const result = await runToCompletion({
      executionId: randomUUID(),
      crew,
      inputs,
      models,
      tools,
      outputFiles: context.outputFiles,
      defaultModel,
      signal: controller.signal,
      onEvent: progress.onEvent,
      review: async (output) => {
        progress.stop();
        return reviewer(output);
      },
    });
    stdout.write(`${result.outputs.at(-1)?.output.trim() ?? ''}\n`);
    stderr.write(`\n${usageSummary(result.usage)}\n`);
  } finally {
    progress.stop();
    lines.close();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

/** Like checkInputs, with the flag that supplies the missing inputs spelled out. */
function checkRunInputs(crew: CrewDefinition, inputs: CrewInputs): void {
  try {
    checkInputs(crew, inputs);
  } catch (error) {
    if (!(error instanceof MissingInputsError)) throw error;
    const example = JSON.stringify(Object.fromEntries(crew.requiredInputs.map((name) => [name, '…'])));
    throw new CrewdError(
      'MISSING_INPUTS',
      `Missing required inputs: ${error.missingInputs.join(', ')}; this crew takes --inputs '${example}'`,
    );
  }
}

async function readLines(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CrewdError('VALIDATION_ERROR', `Cannot read the feedback file ${file}`);
  }
  return text.split(/\r?\n/);
}

function usageSummary(usage: TokenUsage): string {
  const requests = `${usage.successfulRequests} ${usage.successfulRequests === 1 ? 'request' : 'requests'}`;
  return (
    `Token usage: ${usage.totalTokens} total ` +
    `(${usage.promptTokens} prompt, ${usage.completionTokens} completion) over ${requests}`
  );
}
