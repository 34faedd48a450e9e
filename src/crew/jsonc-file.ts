import { readFile } from 'node:fs/promises';
import { findNodeAtLocation, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import { CrewLoadError } from '../domain/errors.ts';
import type { KeyPath } from './key-path.ts';
import type { YamlFile } from './yaml-file.ts';

/**
 * Reads a JSON or JSONC file (comments and trailing commas allowed, as crewAI's loader strips them) into the
 * same shape as a YAML file, so it is validated by the same schemas and its errors name a line.
 */
export async function readJsoncFile(absolutePath: string, file: string): Promise<YamlFile> {
  let text: string;
  try {
    text = await readFile(absolutePath, 'utf8');
  } catch (cause) {
    throw new CrewLoadError(file, 'cannot be read', { cause });
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const lineAt = (offset: number): number => text.slice(0, offset).split('\n').length;
  const [error] = errors;
  if (error !== undefined || tree === undefined) {
    const reason = error === undefined ? 'the file is empty' : printParseErrorCode(error.error);
    throw new CrewLoadError(file, `JSON syntax error: ${reason}`, {
      ...(error === undefined ? {} : { line: lineAt(error.offset) }),
    });
  }
  const data = valueOf(tree);
  const keys =
    tree.type === 'object' ? (tree.children ?? []).map((pair) => String(pair.children?.[0]?.value)) : [];
  const lineOf = (path: KeyPath): number | undefined => {
    // The deepest part of the path that exists, as for YAML.
    for (let length = path.length; length > 0; length -= 1) {
      const node = findNodeAtLocation(tree, [...path.slice(0, length)]);
      if (node !== undefined)
        return lineAt(node.parent?.type === 'property' ? node.parent.offset : node.offset);
    }
    return undefined;
  };
  return { file, data, keys, lineOf };
}

function valueOf(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const result: Record<string, unknown> = {};
      for (const pair of node.children ?? []) {
        const [key, value] = pair.children ?? [];
        if (key !== undefined && value !== undefined) result[String(key.value)] = valueOf(value);
      }
      return result;
    }
    case 'array':
      return (node.children ?? []).map(valueOf);
    case 'property':
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return node.value as unknown;
  }
}
