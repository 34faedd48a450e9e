import type { Command } from 'commander';
import { setFlagsFromString } from 'node:v8';
import { readServeConfig } from '../config.ts';
import { withProjectEnv } from '../crew/project-env.ts';
import type { ServeConfig, ServedCrewConfig, ServeFlags } from '../config.ts';
import type { RunningServer } from '../main.ts';
import type { CliContext } from './cli-context.ts';
import { watchCrew } from './crew-watcher.ts';
import { describeError, explainFailure } from './describe-error.ts';
import { readOrCreateDevToken, type DevToken } from './dev-token.ts';
import { eventLine } from './event-line.ts';
import { heapGrowthFlag } from './heap-growth.ts';
import { servedPaths } from './served-paths.ts';

/**
 * `crewd serve <path> [<path>…]`: serves each crew under `/crews/<name>` (one alone at the root as well) until
 * SIGTERM or SIGINT, then shuts down cleanly.
 */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description(
      'serve crews and flows over HTTP, each under /crews/<name>; one alone answers at the root too',
    )
    .argument(
      '<paths...>',
      "crew directories (agents.yaml, tasks.yaml), flows (flow.yaml, a directory holding one) or crewAI project roots; <name>=<path> names one (default: its directory's name)",
    )
    .option(
      '--crew <name>',
      "which crew of a project holding several: a Flow's crews/<name>, or a crew class of crew.py",
    )
    .option(
      '--allow-partial',
      'serve even when parts of the crew are not honoured or its MCP servers cannot be reached (see `crewd check`)',
    )
    .option('--port <port>', 'port to listen on (default: PORT or 8000)')
    .option('--host <host>', 'address to listen on (default: HOST or 127.0.0.1)')
    .option(
      '--database <location>',
      'SQLite file or postgres:// URL (default: CREWD_DATABASE_URL or ./.crewd/crewd.db)',
    )
    .option(
      '--watch',
      'development: reload the crew when its files change; the token stays the same across starts',
    )
    .action(async (paths: readonly string[], flags: ServeFlags & { readonly watch?: boolean }) => {
      const crews = servedPaths(paths, flags.crew);
      // The first crew's project `.env` holds the server's settings, as with one crew; each crew's models and tools
      // see its own (`crewEnv`).
      const crewDir = crews[0]!.dir;
      const env = await withProjectEnv(crewDir, context.env);
      const withCrews = (read: ServeConfig): ServeConfig => ({ ...read, crews });
      const config = withCrews(readServeConfig(crewDir, flags, env));
      // A long-running server: read once per collection by V8, so setting it before the server starts is enough.
      const heapFlag = heapGrowthFlag(process.execArgv);
      if (heapFlag !== undefined) setFlagsFromString(heapFlag);
      // Loaded here, not at the top, so the other commands start without the whole server.
      const { startServer } = await import('../main.ts');
      const devToken =
        flags.watch === true && config.orgToken === undefined
          ? await readOrCreateDevToken(config.database)
          : undefined;
      const start = async (serveConfig: ServeConfig, serveEnv: typeof env): Promise<RunningServer> => {
        try {
          // On a terminal, a readable line per execution event; the JSON log lines stay as they are.
          const readable = context.stdout.isTTY || context.env.CREWD_EVENT_LINES === '1';
          return await startServer(
            devToken === undefined ? serveConfig : { ...serveConfig, orgToken: devToken.secret },
            {
              env: serveEnv,
              crewEnv: context.env,
              warn: (message) => context.stderr.write(`warning: ${message}\n`),
              ...(readable
                ? { onExecutionEvent: (id, event, at) => context.stdout.write(eventLine(id, event, at)) }
                : {}),
            },
          );
        } catch (error) {
          throw explainFailure(error, {
            database: serveConfig.database,
            listen: { host: serveConfig.host, port: serveConfig.port },
          });
        }
      };
      // Listened for before the server starts: a signal that comes while it starts (its listener may already answer)
      // shuts it down cleanly once started, rather than ending the process by the signal.
      const stopping = stopSignal(context.stdout);
      let server: RunningServer | undefined = await start(config, env);

      let port = new URL(server.url).port;
      // A saved crew file becomes a new version, served to new kickoffs at once; executions in flight keep theirs.
      // A changed `.env` (or a server that is not running) needs a restart: the server stops as at a shutdown
      // (running executions are taken up again by the next one, paused ones wait), and a new one starts on the
      // same port with the crew as it is now.
      const reload = async (file: string): Promise<void> => {
        context.stdout.write(`${file} changed: reloading the crew\n`);
        const running = server;
        if (running !== undefined && !/(^|[\\/])\.env/.test(file)) {
          try {
            const deployed = await running.deployAgain();
            const versions = deployed.map((crew) => `${crew.name} version ${crew.version}`).join(', ');
            context.stdout.write(`Reloaded the crew; serving it again at ${running.url} (${versions})\n`);
          } catch (error) {
            context.stderr.write(`crewd: ${describeError(error)}\n`);
            context.stdout.write('Still serving the crew as it was: fix it and save again\n');
          }
          return;
        }
        await server?.close();
        server = undefined;
        try {
          const reloadEnv = await withProjectEnv(crewDir, context.env);
          server = await start(withCrews(readServeConfig(crewDir, { ...flags, port }, reloadEnv)), reloadEnv);
          port = new URL(server.url).port;
          context.stdout.write(`Reloaded the crew; serving it again at ${server.url}\n`);
        } catch (error) {
          context.stderr.write(`crewd: ${describeError(error)}\n`);
          context.stdout.write('Not serving until the crew loads: fix it and save again\n');
        }
      };
      let reloading = Promise.resolve();
      const watchers =
        flags.watch === true
          ? crews.map((crew) =>
              watchCrew(
                crew.dir,
                (file) => {
                  reloading = reloading.then(() => reload(file));
                },
                (folder, error) => {
                  context.stderr.write(
                    `crewd: cannot watch ${folder} (${error.message}): a change there will not reload the crew\n`,
                  );
                },
              ),
            )
          : [];
      // Said once the crew is watched: a file saved as soon as the server says so is noticed.
      context.stdout.write(welcome(crews, server, devToken));

      const signal = await stopping;
      context.stdout.write(`Received ${signal}, shutting down…\n`);
      for (const watcher of watchers) watcher.close();
      await reloading;
      try {
        await server?.close();
      } catch (error) {
        throw explainFailure(error, { database: config.database });
      }
    });
}

/**
 * The first SIGINT or SIGTERM. A later one ends the process at once, for an operator who will not wait out the
 * grace period; only a SIGINT right after the first is taken for the same Ctrl-C, which reaches the process both
 * from the terminal and through npm or tsx.
 */
function stopSignal(stdout: NodeJS.WritableStream): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: { readonly signal: NodeJS.Signals; readonly at: number } | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      const now = performance.now();
      if (first === undefined) {
        first = { signal, at: now };
        resolve(signal);
        return;
      }
      if (signal === 'SIGINT' && first.signal === 'SIGINT' && now - first.at < sameCtrlCMs) return;
      stdout.write(`Received ${signal} again, exiting now\n`);
      process.exit(exitCodeBySignal[signal] ?? 1);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The one Ctrl-C arrives twice within this, by the terminal and by a wrapper process forwarding it. */
const sameCtrlCMs = 500;
/** As a shell reports a process ended by the signal: 128 + its number. */
const exitCodeBySignal: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

function welcome(
  crews: readonly ServedCrewConfig[],
  server: RunningServer,
  devToken: DevToken | undefined,
): string {
  const lines =
    crews.length === 1
      ? [`crewd is serving ${crews[0]!.dir} at ${server.url}`]
      : [
          `crewd is serving ${crews.length} crews at ${server.url}:`,
          ...crews.map((crew) => `  ${crew.name}: ${server.url}/crews/${crew.name} (${crew.dir})`),
        ];
  const inputsPath = crews.length === 1 ? '/inputs' : `/crews/${crews[0]!.name}/inputs`;
  if (devToken !== undefined) {
    lines.push(
      `Development token (the same at every start with --watch; kept in ${devToken.file}):`,
      `  ${devToken.secret}`,
      'Try it:',
      `  curl -H 'Authorization: Bearer ${devToken.secret}' ${server.url}${inputsPath}`,
      'Watching the crew: a saved change reloads it.',
    );
  } else if (server.startupToken === undefined) {
    lines.push('Clients authenticate with CREWD_ORG_TOKEN or a token from `crewd tokens create`.');
  } else {
    lines.push(
      'Organization token for this start (shown once; the one printed at the previous start no longer works):',
      `  ${server.startupToken}`,
      'Try it:',
      `  curl -H 'Authorization: Bearer ${server.startupToken}' ${server.url}${inputsPath}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
