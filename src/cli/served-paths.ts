import type { ServedCrewConfig } from '../config.ts';
import { crewNamePattern } from '../domain/crew-name.ts';
import { CrewdError } from '../domain/errors.ts';
import { crewNameOf } from '../runtime/served-crews.ts';

/**
 * The crews `crewd serve <path>…` names: each `<path>` is served as its directory's name, each `<name>=<path>`
 * under that name.
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
    return { dir, name };
  });
}
