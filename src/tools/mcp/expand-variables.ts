import { CrewdError } from '../../domain/errors.ts';

const variable = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces every `${VAR}` in the values with crewd's environment variable of that name. A variable that is not set
 * is a configuration error naming it (never its neighbours' values): a server started with an empty API key would
 * fail later with a less helpful message.
 */
export function expandVariables(
  values: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
  owner: string,
): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    expanded[key] = value.replace(variable, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) {
        throw new CrewdError(
          'CONFIG_INVALID',
          `${owner}: environment variable '${name}' (in '${key}') is not set`,
        );
      }
      return found;
    });
  }
  return expanded;
}
