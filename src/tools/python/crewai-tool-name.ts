import { createHash } from 'node:crypto';

const maxLength = 64;

/**
 * The name crewAI offers the model for a tool named `name` (its `sanitize_tool_name`): ASCII, camelCase split,
 * lower case, runs of other characters as one `_`, at most 64 characters (a longer one ends in a hash of itself).
 */
export function crewaiToolName(name: string): string {
  let result = name.normalize('NFKD').replace(/[^\p{ASCII}]/gu, '');
  result = result.replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').replace(/([a-z])([A-Z])/g, '$1_$2');
  result = result.toLowerCase().replace(/['"]+/g, '');
  result = result
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (result.length > maxLength) {
    const suffix = `_${createHash('sha256').update(result).digest('hex').slice(0, 8)}`;
    result = result.slice(0, maxLength - suffix.length).replace(/_+$/, '') + suffix;
  }
  return result === '' ? 'tool' : result;
}
