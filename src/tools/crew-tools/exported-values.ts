/**
 * The values a module exports, read the same whichever way Node ran it.
 *
 * An ES module's exports are its namespace's. A module Node runs as CommonJS (a `.cts` or `.cjs` file, or a `.ts`
 * or `.js` one where no package.json says `"type": "module"`, which is where users keep crews) reaches `import()` as
 * `{ default: module.exports }`, with only the names Node could guess beside it: its real exports are the
 * properties of `module.exports`. An ES module compiled to CommonJS keeps its default export there as `default`, so
 * `export default tool` arrives as `{ default: { default: tool } }`. The properties of a default export that is a
 * plain object are therefore exports too; arrays stand for their items.
 */
export function exportedValues(namespace: Readonly<Record<string, unknown>>): unknown[] {
  const values = Object.values(namespace);
  const { default: defaultExport } = namespace;
  if (isPlainObject(defaultExport)) values.push(...Object.values(defaultExport));
  return [...new Set(values.flatMap((value) => (Array.isArray(value) ? (value as unknown[]) : [value])))];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
