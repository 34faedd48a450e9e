import { Command, CommanderError } from 'commander';
import type { CliContext } from './cli-context.ts';
import { registerCheckCommand } from './check-command.ts';
import { registerClientCommands } from './client-commands.ts';
import { describeError } from './describe-error.ts';
import { registerInitCommand } from './init-command.ts';
import { registerPruneCommand } from './prune-command.ts';
import { registerRunCommand } from './run-command.ts';
import { registerServeCommand } from './serve-command.ts';
import { registerTokensCommand } from './tokens-command.ts';
import { registerVersionsCommands } from './versions-command.ts';
import { registerDeployCommand } from './deploy-command.ts';
import { registerTriggersCommand } from './triggers-command.ts';
import { registerSchedulesCommand } from './schedules-command.ts';

/** The `crewd` command: assembles the subcommands and turns any failure into one line and exit code 1. */
async function main(context: CliContext, argv: readonly string[]): Promise<number> {
  const program = new Command('crewd')
    .description('Serve and run crewAI-style crews')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
      outputError: (text, write) => write(`crewd: ${text.replace(/^error: /, '')}`),
    });
  registerServeCommand(program, context);
  registerRunCommand(program, context);
  registerCheckCommand(program, context);
  registerTokensCommand(program, context);
  registerTriggersCommand(program, context);
  registerSchedulesCommand(program, context);
  registerPruneCommand(program, context);
  registerVersionsCommands(program, context);
  registerDeployCommand(program, context);
  registerClientCommands(program, context);
  registerInitCommand(program, context);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    // Commander has already printed its own message (or the help, which exits 0).
    if (error instanceof CommanderError) return error.exitCode;
    context.stderr.write(`crewd: ${describeError(error)}\n`);
    return 1;
  }
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

const context: CliContext = {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
};
const code = await main(context, process.argv);
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
// Exit explicitly: idle sockets, pools or timers of a finished command must not keep the process alive.
process.exit(code);
