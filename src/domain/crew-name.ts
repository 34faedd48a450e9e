/**
 * A served crew's name: its base URL is `/crews/<name>`, and tokens name it in `--crews`. Lower-case letters,
 * digits, `-` and `_`, starting with a letter or digit, so it is a path segment as it stands.
 */
export const crewNamePattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const crewNameRule =
  'lower-case letters, digits, - and _, at most 63, starting with a letter or digit';

/** True when the caller's token reaches this crew: tokens without a list reach every crew. */
export function reachesCrew(crews: readonly string[] | null | undefined, name: string): boolean {
  return crews === null || crews === undefined || crews.includes(name);
}
