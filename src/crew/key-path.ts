/** A path into a YAML document: mapping keys and sequence indexes, outermost first. */
export type KeyPath = readonly (string | number)[];

/** `['write_report', 'context', 0]` → `write_report.context[0]`, the form error messages use. */
export function formatKeyPath(path: KeyPath): string {
  let formatted = '';
  for (const segment of path) {
    if (typeof segment === 'number') formatted += `[${segment}]`;
    else formatted += formatted === '' ? segment : `.${segment}`;
  }
  return formatted;
}
