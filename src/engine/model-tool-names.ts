/** What every provider accepts as a function name (OpenAI's rule, the strictest of them). */
const maxLength = 64;

/**
 * The names the model sees for tools named `names` (in order): each made of letters, digits, `_` and `-`, at most
 * 64 characters, and unique. `files.read_file` becomes `files_read_file`; a name that collides gets `_2`, `_3`….
 */
export function modelToolNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const base = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'tool';
    let candidate = base.slice(0, maxLength);
    for (let suffix = 2; taken.has(candidate); suffix += 1) {
      const tail = `_${suffix}`;
      candidate = `${base.slice(0, maxLength - tail.length)}${tail}`;
    }
    taken.add(candidate);
    return candidate;
  });
}
