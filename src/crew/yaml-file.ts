import { readFile } from 'node:fs/promises';
import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { CrewLoadError } from '../domain/errors.ts';
import { formatKeyPath } from './key-path.ts';
import type { KeyPath } from './key-path.ts';

/** A parsed YAML file that still knows where each key was written, so errors can name a line. */
export interface YamlFile {
  /** The file's name as error messages show it (relative to the crew directory). */
  readonly file: string;
  /** The document as plain JavaScript; `null` for an empty file. */
  readonly data: unknown;
  /**
   * The top-level keys in the order they are written. A plain object lists number-like keys (`"3"`, `"1"`) first
   * in numeric order, so file order (which is run order for tasks) is read from here.
   */
  readonly keys: readonly string[];
  /** The 1-based line of the deepest part of `path` present in the file, or undefined. */
  lineOf(path: KeyPath): number | undefined;
  /**
   * Where a value laid over the file from elsewhere was written (a keyword argument in crew.py), for `path`;
   * undefined when the file itself holds it.
   */
  origin?(path: KeyPath): SourceLine | undefined;
}

/** A line of a file other than the YAML, such as crew.py. */
export interface SourceLine {
  readonly file: string;
  readonly line: number;
}

/**
 * Parses YAML text. Syntax errors and duplicate keys become a CrewLoadError naming the line.
 * YAML 1.2 core schema (only `true`/`false` are booleans), with `<<` merge keys as PyYAML reads them.
 */
export function parseYamlFile(source: string, file: string): YamlFile {
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter, uniqueKeys: true, merge: true, prettyErrors: true });
  const lineAt = (offset: number): number => lineCounter.linePos(offset).line;
  const lineOf = (path: KeyPath): number | undefined => {
    const offset = offsetOf(document, path);
    return offset === undefined ? undefined : lineAt(offset);
  };

  const [error] = document.errors;
  if (error !== undefined) {
    const line = lineAt(error.pos[0]);
    if (error.code === 'DUPLICATE_KEY') {
      const path = pathAtOffset(document.contents, error.pos[0], []);
      const key = path === undefined ? undefined : String(path[path.length - 1]);
      throw new CrewLoadError(file, key === undefined ? 'duplicate key' : `duplicate key "${key}"`, {
        ...(path === undefined ? {} : { key: formatKeyPath(path) }),
        line,
      });
    }
    throw new CrewLoadError(file, `YAML syntax error: ${firstLine(error.message)}`, { line, cause: error });
  }

  let data: unknown;
  try {
    data = document.toJS();
  } catch (cause) {
    // Unresolved aliases and alias expansions past the safety limit surface only here.
    const reason = cause instanceof Error ? cause.message : 'cannot be read';
    throw new CrewLoadError(file, `YAML error: ${reason}`, { cause });
  }
  const contents = document.contents;
  const keys = isMap(contents)
    ? contents.items.flatMap((pair) => (isScalar(pair.key) ? [String(pair.key.value)] : []))
    : [];
  return { file, data, keys, lineOf };
}

/** Reads and parses a YAML file from disk; `file` is the name used in messages. */
export async function readYamlFile(absolutePath: string, file: string): Promise<YamlFile> {
  let source: string;
  try {
    source = await readFile(absolutePath, 'utf8');
  } catch (cause) {
    throw new CrewLoadError(file, 'cannot be read', { cause });
  }
  return parseYamlFile(source, file);
}

/** The start offset of the key (or sequence item) deepest along `path`. */
function offsetOf(document: Document, path: KeyPath): number | undefined {
  let node: unknown = document.contents;
  let offset: number | undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (pair === undefined) break;
      offset = startOf(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (item === undefined) break;
      offset = startOf(item) ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}

/** The key path of the mapping key that starts at `offset`, used to name a duplicate key. */
function pathAtOffset(node: unknown, offset: number, path: KeyPath): KeyPath | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined) continue;
      if (startOf(pair.key) === offset) return [...path, key];
      const found = pathAtOffset(pair.value, offset, [...path, key]);
      if (found !== undefined) return found;
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      const found = pathAtOffset(item, offset, [...path, index]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function startOf(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[0] : undefined;
}

/** yaml's messages end with a code excerpt and position; the line is reported separately. */
function firstLine(message: string): string {
  const [head = message] = message.split('\n');
  return head.replace(/ at line \d+, column \d+:?$/, '');
}
