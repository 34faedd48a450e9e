import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import type { Node, Tree } from 'web-tree-sitter';

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
 * Parses Python sources without running them and holds their syntax trees. A tree lives in WebAssembly memory,
 * which the garbage collector never frees: `release()` deletes every tree parsed here, after which none of their
 * nodes may be read. Syntax errors do not throw: tree-sitter marks them in the tree, and the readers treat what
 * they cannot understand as not readable.
 */
export class PythonTrees {
  readonly #trees = new Set<Tree>();

  async parse(source: string): Promise<PythonNode> {
    const grammar = await loadLanguage();
    const parser = new Parser();
    try {
      parser.setLanguage(grammar);
      const tree = parser.parse(source);
      if (tree === null) throw new Error('the Python parser returned no tree');
      this.#trees.add(tree);
      return tree.rootNode;
    } finally {
      parser.delete();
    }
  }

  release(): void {
    for (const tree of this.#trees) tree.delete();
    this.#trees.clear();
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

/**
 * The 1-based line where tree-sitter first gave up parsing (inside the innermost ERROR, where it stopped, or a
 * MISSING token), with that line's text; undefined when the source parsed cleanly.
 */
export function firstSyntaxError(root: PythonNode): { line: number; text: string } | undefined {
  if (!root.hasError) return undefined;
  let node = root;
  for (;;) {
    const inner = node.children.find((child) => child !== null && (child.hasError || child.isMissing));
    if (inner == null) break;
    node = inner;
  }
  const last = node.isError ? node.children.at(-1) : undefined;
  const line = lineOf(last ?? node);
  return { line, text: (root.text.split('\n')[line - 1] ?? '').trim() };
}
