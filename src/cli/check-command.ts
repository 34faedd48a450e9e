import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { withProjectEnv } from '../crew/project-env.ts';
import { CrewdError } from '../domain/errors.ts';
import { defaultDatabasePath } from '../config.ts';
import { openCrewRuntime } from '../runtime/crew-runtime.ts';
import { crewdStatePaths, workspaceRoot } from '../workspace/execution-workspace.ts';
import type { CliContext } from './cli-context.ts';
import { crewCredentials } from './crew-credentials.ts';
import { migrationReport } from './migration-report.ts';
import { isFlow } from '../flow/is-flow.ts';
import { flowReport } from './flow-report.ts';

/** `crewd check <crew-dir>`: the migration report, and a non-zero exit when crewd would not run the crew as written. */
export function registerCheckCommand(program: Command, context: CliContext): void {
  program
    .command('check')
    .description('report what crewd will run from a crew, flow or crewAI project, and what it will not honour')
    .argument('<crew-dir>', 'crew directory (agents.yaml, tasks.yaml), crewAI project root, or a flow (flow.yaml)')
    .option('--crew <name>', "which crew of a project holding several: a Flow's crews/<name>, or a crew class of crew.py")
    .action(async (crewDir: string, options: { crew?: string }) => {
      if (options.crew === undefined && (await isFlow(crewDir))) {
        const warnings: string[] = [];
        const targetDir = (await stat(crewDir)).isDirectory() ? crewDir : path.dirname(crewDir);
        // Opening the flow checks what it needs: its Python, its agents' tools (a tool no source has is refused).
        const { openFlowRuntime } = await import('../flow/open-flow-runtime.ts');
        const runtime = await openFlowRuntime({
          target: crewDir,
          env: await withProjectEnv(path.resolve(targetDir), context.env),
          warn: (message) => warnings.push(message),
          tools: {
            workspaceRoot: workspaceRoot(defaultDatabasePath),
            crewdState: crewdStatePaths(defaultDatabasePath),
          },
        });
        try {
          context.stdout.write(
            flowReport(runtime.definition, warnings, {
              python: runtime.python,
              tools: runtime.tools.statuses(),
            }),
          );
        } finally {
          await runtime.close();
        }
        return;
      }
      const env = await withProjectEnv(crewDir, context.env);
      const warnings: string[] = [];
      const defaultModel = env.MODEL === '' ? undefined : env.MODEL;
      const runtime = await openCrewRuntime({
        crewDir,
        ...(options.crew === undefined ? {} : { crewName: options.crew }),
        env,
        warn: (message) => warnings.push(message),
        // Reported rather than refused: the report lists what would be left out in sections of its own.
        drop: () => undefined,
        startWithout: () => undefined,
        allowPartial: true,
        defaultModel,
        tools: {
          workspaceRoot: workspaceRoot(defaultDatabasePath),
          crewdState: crewdStatePaths(defaultDatabasePath),
        },
        check: false,
      });
      const { crew, models, tools, dropped, unavailable } = runtime;
      let report: ReturnType<typeof migrationReport>;
      try {
        const credentials = crewCredentials(crew, { env, processEnv: context.env, defaultModel });
        const listed = tools.statuses().filter((status) => status.listing !== undefined);
        report = migrationReport(
          crew,
          { warnings, dropped, unavailable, credentials, listed },
          { models, tools, defaultModel },
        );
      } finally {
        await runtime.close();
      }
      context.stdout.write(report.text);
      if (report.problems > 0) {
        throw new CrewdError('CREW_INVALID', 'the crew does not run as written (see the report above)');
      }
    });
}
