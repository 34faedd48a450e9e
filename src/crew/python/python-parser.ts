import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import type { Node } from 'web-tree-sitter';

export type PythonNode = Node;

const require = createRequire(import.meta.url);

// Loading the runtime and the grammar compiles WebAssembly (tens of milliseconds); both are immutable, so one
// load serves every crew read in the process.
let language: Promise<Language> | undefined;

function loadLanguage(): Promise<Language> {
  language ??= Parser.init().then(() =>
    Language.load(require.resolve('tree-sitter-python/tree-sitter-python.wasm')),
  );
  return language;
}

/**
 * Parses Python source into a syntax tree without running it. Syntax errors do not throw: tree-sitter marks
 * them in the tree, and the readers treat what they cannot understand as not readable.
 */
export async function parsePython(source: string): Promise<PythonNode> {
  const grammar = await loadLanguage();
  const parser = new Parser();
  try {
    parser.setLanguage(grammar);
    const tree = parser.parse(source);
    if (tree === null) throw new Error('the Python parser returned no tree');
    return tree.rootNode;
  } finally {
    parser.delete();
  }
}

/** The 1-based line a node starts on. */
export function lineOf(node: PythonNode): number {
  return node.startPosition.row + 1;
}

/** The named children of a node, without the nulls the binding's types allow for. */
export function namedChildren(node: PythonNode): PythonNode[] {
  return node.namedChildren.filter((child): child is PythonNode => child !== null);
}
