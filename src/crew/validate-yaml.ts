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
    throw new CrewLoadError(yaml.file, 'must be a mapping of keys to values', locate(yaml, path));
  }
  warnUnknownKeys(yaml, path, value, Object.keys(schema.shape), warn, unhonoured);

  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const issuePath = (issue?.path ?? []).filter((segment) => typeof segment !== 'symbol');
  throw new CrewLoadError(yaml.file, issue?.message ?? 'is invalid', {
    ...locate(yaml, [...path, ...issuePath]),
    cause: result.error,
  });
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
    const where = `${formatLocation(yaml.file, yaml.lineOf(keyPath))} (${formatKeyPath(keyPath)})`;
    const instead = unhonoured?.keys[key];
    if (unhonoured !== undefined && instead !== undefined && Object.hasOwn(unhonoured.keys, key)) {
      unhonoured.report(`${where}: ${unhonouredMessage(key, instead)}`);
    } else {
      warn(`${where}: unknown key, ignored`);
    }
  }
}

/** The `key` and `line` a CrewLoadError takes for `path`; the crew.yaml root has no key. */
export function locate(yaml: YamlFile, path: KeyPath): { key?: string; line?: number } {
  const line = yaml.lineOf(path);
  return {
    ...(path.length === 0 ? {} : { key: formatKeyPath(path) }),
    ...(line === undefined ? {} : { line }),
  };
}

/** The same `file:line N` prefix CrewLoadError messages start with, for warnings. */
function formatLocation(file: string, line: number | undefined): string {
  return line === undefined ? file : `${file}:line ${line}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
