import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedCrewConfig } from '../config.ts';
import { crewNamePattern } from '../domain/crew-name.ts';
import { CrewdError } from '../domain/errors.ts';
import { crewNameOf } from '../runtime/served-crews.ts';

/**
 * The crews `crewd serve <path>…` names: each `<path>` is served as its directory's name, each `<name>=<path>`
 * under that name. A flow is refused: serving flows is not supported yet.
 */
export function servedPaths(args: readonly string[], crewName: string | undefined): ServedCrewConfig[] {
  return args.map((arg) => {
    const named = /^([^=/\\]+)=(.+)$/.exec(arg);
    const dir = named?.[2] ?? arg;
    const name = named?.[1] ?? crewNameOf(dir, args.length === 1 ? crewName : undefined);
    if (named !== null && !crewNamePattern.test(name)) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `'${name}' is not a crew name: use lower-case letters, digits, - and _ (as in research=./crews/research)`,
      );
    }
    refuseFlow(dir);
    return { dir, name };
  });
}

/** Flow files as crewAI writes them (`schema: crewai.flow/v1`), given as the path or found in the directory. */
function refuseFlow(path: string): void {
  const candidates = isDirectory(path)
    ? ['flow.yaml', 'flow.yml', 'flow.json'].map((file) => join(path, file))
    : [path];
  for (const file of candidates) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (/crewai\.flow\/v1/.test(text)) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `${path} is a flow: crewd serve serves crews only for now; serve the crews the flow uses instead`,
      );
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
