import { basename, resolve } from 'node:path';
import type { ServeConfig, ServedCrewConfig } from '../config.ts';
import { crewNamePattern, crewNameRule } from '../domain/crew-name.ts';
import { CrewdError } from '../domain/errors.ts';

/** Every crew the configuration serves, first the one in `crewDir`; names are checked and unique. */
export function servedCrews(config: ServeConfig): readonly ServedCrewConfig[] {
  const crews = config.crews ?? [{ dir: config.crewDir, name: crewNameOf(config.crewDir, config.crewName) }];
  const seen = new Set<string>();
  for (const crew of crews) {
    if (!crewNamePattern.test(crew.name)) {
      throw new CrewdError('CONFIG_INVALID', `'${crew.name}' is not a crew name (${crewNameRule})`);
    }
    if (seen.has(crew.name)) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `Two crews are named '${crew.name}': name one yourself, as <name>=<path>`,
      );
    }
    seen.add(crew.name);
  }
  return crews;
}

/**
 * The name a crew is served under when none is given: the crew's own (`--crew`) or its directory's, in lower case
 * with anything but letters, digits, `-` and `_` made a `-`.
 */
export function crewNameOf(dir: string, crewName?: string): string {
  const source = crewName ?? basename(resolve(dir));
  const name = source
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return name === '' ? 'crew' : name;
}
