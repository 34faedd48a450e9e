import type { Command } from 'commander';
import type { CliContext } from './cli-context.ts';
import type { RunOptions } from './run-crew-in-terminal.ts';

/** `crewd run <crew-dir>`: runs a crew once in the terminal, with no server and no store. */
export function registerRunCommand(program: Command, context: CliContext): void {
  program
    .command('run')
    .description('run a crew or a flow once in the terminal, with live progress and no server')
    .argument(
      '<crew-dir>',
      'crew directory (agents.yaml, tasks.yaml), crewAI project root, or a flow (flow.yaml)',
    )
    .option(
      '--crew <name>',
      "which crew of a project holding several: a Flow's crews/<name>, or a crew class of crew.py",
    )
    .option('--inputs <json>', 'the crew inputs as a JSON object', '{}')
    .option(
      '--allow-partial',
      'run even when parts of the crew are not honoured or its MCP servers cannot be reached (see `crewd check`)',
    )
    .option('--model <provider/model>', "use this model for every agent, instead of the crew's llm")
    .option(
      '--output-dir <dir>',
      "where tasks' output_file files are written (default: the current directory, as crewAI does)",
    )
    .option('--record <file>', 'record every model answer into this replay file')
    .option(
      '--feedback-file <file>',
      "answers for reviews, one line each: a crew's y or n, then the feedback; a flow's feedback (reject: … rejects)",
    )
    .action(async (crewDir: string, options: RunOptions) => {
      const { isFlow } = await import('../flow/is-flow.ts');
      if (options.crew === undefined && (await isFlow(crewDir))) {
        const { runFlowInTerminal } = await import('./run-flow-in-terminal.ts');
        await runFlowInTerminal(crewDir, options, context);
        return;
      }
      // Loaded here, not at the top, so the other commands start without the model providers.
      const { runCrewInTerminal } = await import('./run-crew-in-terminal.ts');
      await runCrewInTerminal(crewDir, options, context);
    });
}
