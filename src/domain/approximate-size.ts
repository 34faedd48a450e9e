/**
 * About how many bytes `value` takes as JSON text (strings counted in UTF-16 units, the way V8 mostly holds them):
 * cheap enough to weigh every execution read, close enough to budget memory and page sizes by.
 */
export function approximateJsonBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') bytes += current.length + 2;
    else if (current === null || typeof current !== 'object') bytes += 8;
    else if (current instanceof Date) bytes += 26;
    else if (Array.isArray(current)) {
      bytes += 2 + current.length;
      for (const item of current) pending.push(item);
    } else {
      for (const [key, item] of Object.entries(current)) {
        bytes += key.length + 4;
        pending.push(item);
      }
    }
  }
  return bytes;
}
