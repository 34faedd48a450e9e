import type { z } from 'zod';
import { CrewLoadError } from '../domain/errors.ts';
import { formatKeyPath } from './key-path.ts';
import type { KeyPath } from './key-path.ts';
import { unhonouredMessage } from './unhonoured-keys.ts';
import type { UnhonouredKeys } from './unhonoured-keys.ts';
import type { YamlFile } from './yaml-file.ts';

export type Warn = (message: string) => void;

/**
 * Checks a mapping of named entries (agents.yaml, tasks.yaml) against `schema`, keeping file order.
 * `plural` names the entries in messages ("agents", "tasks").
 */
export function validateEntries<Schema extends z.ZodObject>(
  yaml: YamlFile,
  schema: Schema,
  plural: string,
  warn: Warn,
  unhonoured?: Unhonoured,
): Map<string, z.infer<Schema>> {
  if (yaml.data === null || yaml.data === undefined) {
    throw new CrewLoadError(yaml.file, `defines no ${plural}; the file is empty`);
  }
  if (!isPlainObject(yaml.data)) {
    throw new CrewLoadError(yaml.file, `must be a mapping of names to ${plural}`, { line: 1 });
  }
  const entries = new Map<string, z.infer<Schema>>();
  const data = yaml.data;
  // File order, as written; keys the document holds beyond those (from merge keys) follow.
  const names = [
    ...new Set([...yaml.keys.filter((name) => Object.hasOwn(data, name)), ...Object.keys(data)]),
  ];
  for (const name of names) {
    entries.set(name, validateObject(yaml, [name], data[name], schema, warn, unhonoured));
  }
  if (entries.size === 0) throw new CrewLoadError(yaml.file, `defines no ${plural}`);
  return entries;
}

/** crewAI keys crewd does not act on yet (what happens instead, by key), and where to report them. */
export interface Unhonoured {
  readonly keys: UnhonouredKeys;
  readonly report: Warn;
}

/**
 * Checks one mapping at `path` against `schema`. Keys the schema does not know are reported and dropped:
 * crewAI keys crewd does not act on yet through `unhonoured`, any other key through `warn`.
 */
export function validateObject<Schema extends z.ZodObject>(
  yaml: YamlFile,
  path: KeyPath,
  value: unknown,
  schema: Schema,
  warn: Warn,
  unhonoured?: Unhonoured,
): z.infer<Schema> {
  if (!isPlainObject(value)) {
    const where = locate(yaml, path);
    throw new CrewLoadError(where.file, 'must be a mapping of keys to values', where);
  }
  warnUnknownKeys(yaml, path, value, Object.keys(schema.shape), warn, unhonoured);

  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const issuePath = (issue?.path ?? []).filter((segment) => typeof segment !== 'symbol');
  const where = locate(yaml, [...path, ...issuePath]);
  throw new CrewLoadError(where.file, issue?.message ?? 'is invalid', { ...where, cause: result.error });
}

/**
 * Reports each key of the mapping `value` at `path` that is not in `known`: crewAI keys crewd does not act on yet
 * through `unhonoured`, any other through `warn`. Anything not a mapping is skipped.
 */
export function warnUnknownKeys(
  yaml: YamlFile,
  path: KeyPath,
  value: unknown,
  known: readonly string[],
  warn: Warn,
  unhonoured?: Unhonoured,
): void {
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const keyPath = [...path, key];
    const where = `${formatLocation(yaml, keyPath)} (${formatKeyPath(keyPath)})`;
    const instead = unhonoured?.keys[key];
    if (unhonoured !== undefined && instead !== undefined && Object.hasOwn(unhonoured.keys, key)) {
      // `memory: false`, `None` or `[]` ask for nothing crewd lacks: only a setting that turns the feature on is.
      if (isRequest(value[key])) unhonoured.report(`${where}: ${unhonouredMessage(key, instead)}`);
    } else {
      warn(`${where}: unknown key, ignored`);
    }
  }
}

/**
 * The `file`, `key` and `line` a CrewLoadError takes for `path`: crew.py's line when the value was written there,
 * else the YAML's. The crew.yaml root has no key.
 */
export function locate(yaml: YamlFile, path: KeyPath): { file: string; key?: string; line?: number } {
  const origin = yaml.origin?.(path);
  const line = origin?.line ?? yaml.lineOf(path);
  return {
    file: origin?.file ?? yaml.file,
    ...(path.length === 0 ? {} : { key: formatKeyPath(path) }),
    ...(line === undefined ? {} : { line }),
  };
}

/**
 * Where a key is, for warnings: a YAML key as CrewLoadError messages name it (`file:line N`), a crew.py argument as
 * Python tools do (`file:line`), like the reader's own messages about crew.py.
 */
function formatLocation(yaml: YamlFile, path: KeyPath): string {
  const origin = yaml.origin?.(path);
  if (origin !== undefined) return `${origin.file}:${origin.line}`;
  const line = yaml.lineOf(path);
  return line === undefined ? yaml.file : `${yaml.file}:line ${line}`;
}

/** Whether a crewAI setting asks for something: false, null and empty lists or mappings ask for nothing. */
function isRequest(value: unknown): boolean {
  if (value === false || value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  return !isPlainObject(value) || Object.keys(value).length > 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
