import type { Command } from 'commander';
import { readCrewSnapshot } from '../crew/crew-snapshot.ts';
import { CrewdError } from '../domain/errors.ts';
import { crewNameOf } from '../runtime/served-crews.ts';
import type { CliContext } from './cli-context.ts';

interface DeployFlags {
  readonly url?: string;
  readonly token?: string;
  readonly name?: string;
}

/**
 * `crewd deploy <path>`: sends the crew's files to a running server, where they become the version new kickoffs
 * of that crew use. The server must have deploying enabled (`CREWD_DEPLOY=1`) and the token be a deploy token.
 */
export function registerDeployCommand(program: Command, context: CliContext): void {
  program
    .command('deploy')
    .description(
      "send a crew's files to a running server as its new version (a deploy token; CREWD_DEPLOY=1 there)",
    )
    .argument('<path>', 'the crew directory')
    .option('--url <url>', "the server's URL (default: CREWD_URL or http://127.0.0.1:8000)")
    .option(
      '--token <token>',
      'a deploy token, from crewd tokens create --org --deploy (default: CREWD_TOKEN)',
    )
    .option('--name <name>', "the crew's name on the server (default: its directory's)")
    .action(async (path: string, flags: DeployFlags) => {
      const url = (flags.url ?? context.env.CREWD_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
      const token = flags.token ?? context.env.CREWD_TOKEN;
      if (token === undefined || token === '') {
        throw new CrewdError('VALIDATION_ERROR', 'Pass a deploy token with --token or CREWD_TOKEN');
      }
      const name = flags.name ?? crewNameOf(path);
      const files = await readCrewSnapshot(path);
      let response: Response;
      try {
        response = await fetch(`${url}/crews/${encodeURIComponent(name)}/deploy`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ files }),
        });
      } catch (error) {
        throw new CrewdError('DEPENDENCY_UNAVAILABLE', `Cannot reach crewd at ${url}`, { cause: error });
      }
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (!response.ok) {
        const why =
          response.status === 404 ? 'no such crew, or deploying is not enabled there' : body.message;
        throw new CrewdError('VALIDATION_ERROR', `Not deployed: ${String(why)} (HTTP ${response.status})`);
      }
      const same = body.created === true ? '' : ' (the same files as before)';
      context.stdout.write(
        `Deployed ${name} as version ${String(body.version)}${same}; new kickoffs use it\n`,
      );
    });
}
