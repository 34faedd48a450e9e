import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { namedChildren, PythonTrees } from './python-parser.ts';
import type { PythonNode } from './python-parser.ts';

/** A name brought in by `from X import Y [as Z]`: the module as written (dots for relative) and the name. */
export interface ImportedName {
  readonly module: string;
  readonly name: string;
}

/** A function or class at module level, with the decorators written above it. */
export interface Definition {
  readonly node: PythonNode;
  readonly decorators: readonly PythonNode[];
}

/** One Python file read into its module-level names. Nothing is executed. */
export interface PythonModule {
  /** The file's name as messages show it (relative to the crew directory). */
  readonly file: string;
  readonly absolutePath: string;
  readonly root: PythonNode;
  readonly imports: ReadonlyMap<string, ImportedName>;
  /** The value of the last module-level `name = value`. */
  readonly assignments: ReadonlyMap<string, PythonNode>;
  readonly classes: ReadonlyMap<string, Definition>;
  readonly functions: ReadonlyMap<string, Definition>;
}

/** Reads Python source into a PythonModule whose nodes live in `trees`. */
export async function readPythonModule(
  source: string,
  file: string,
  absolutePath: string,
  trees: PythonTrees,
): Promise<PythonModule> {
  const root = await trees.parse(source);
  const imports = new Map<string, ImportedName>();
  const assignments = new Map<string, PythonNode>();
  const classes = new Map<string, Definition>();
  const functions = new Map<string, Definition>();

  for (const statement of namedChildren(root)) {
    if (statement.type === 'import_from_statement') {
      const moduleNode = statement.childForFieldName('module_name');
      if (moduleNode === null) continue;
      for (const nameNode of statement.childrenForFieldName('name')) {
        if (nameNode === null) continue;
        if (nameNode.type === 'aliased_import') {
          const original = nameNode.childForFieldName('name')?.text;
          const alias = nameNode.childForFieldName('alias')?.text;
          if (original !== undefined && alias !== undefined) {
            imports.set(alias, { module: moduleNode.text, name: original });
          }
        } else {
          imports.set(nameNode.text, { module: moduleNode.text, name: nameNode.text });
        }
      }
    } else if (statement.type === 'import_statement') {
      // `import pkg.types as t`: `t.Report` is followed like `from pkg import types`.
      for (const nameNode of statement.childrenForFieldName('name')) {
        if (nameNode?.type !== 'aliased_import') continue;
        const dotted = nameNode.childForFieldName('name')?.text;
        const alias = nameNode.childForFieldName('alias')?.text;
        const split = dotted?.lastIndexOf('.') ?? -1;
        if (dotted === undefined || alias === undefined || split === -1) continue;
        imports.set(alias, { module: dotted.slice(0, split), name: dotted.slice(split + 1) });
      }
    } else if (statement.type === 'expression_statement') {
      const assignment = statement.firstNamedChild;
      if (assignment?.type !== 'assignment') continue;
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (left?.type === 'identifier' && right !== null) assignments.set(left.text, right);
    } else {
      const definition = definitionOf(statement);
      if (definition === undefined) continue;
      const name = definition.node.childForFieldName('name')?.text;
      if (name === undefined) continue;
      (definition.node.type === 'class_definition' ? classes : functions).set(name, definition);
    }
  }
  return { file, absolutePath, root, imports, assignments, classes, functions };
}

/** A class or function definition statement, decorated or not; undefined for anything else. */
export function definitionOf(statement: PythonNode): Definition | undefined {
  if (statement.type === 'class_definition' || statement.type === 'function_definition') {
    return { node: statement, decorators: [] };
  }
  if (statement.type !== 'decorated_definition') return undefined;
  const node = statement.childForFieldName('definition');
  if (node === null) return undefined;
  const decorators = namedChildren(statement).filter((child) => child.type === 'decorator');
  return { node, decorators };
}

/** The name a decorator is called by: `@agent` and `@tool("Name")` give `agent` and `tool`. */
export function decoratorName(decorator: PythonNode): string | undefined {
  let expression = decorator.firstNamedChild;
  if (expression?.type === 'call') expression = expression.childForFieldName('function');
  if (expression?.type === 'identifier') return expression.text;
  if (expression?.type === 'attribute') return expression.childForFieldName('attribute')?.text;
  return undefined;
}

/**
 * Finds and reads the modules of one crewAI package, so names crew.py imports from the package itself
 * (`from .models import Report`, `from my_crew.tools.search import SearchTool`) can be followed. Their syntax
 * trees are held until `close()`.
 */
export class PackageModules {
  readonly #cache = new Map<string, Promise<PythonModule | undefined>>();
  readonly #trees = new PythonTrees();

  /**
   * @param sourceRoot the folder that holds top-level packages (a crewAI project's `src/`), absolute
   * @param crewRoot the crew directory, to name files in messages
   */
  constructor(
    private readonly sourceRoot: string,
    private readonly crewRoot: string,
  ) {}

  /** Reads the file at `absolutePath`; undefined when it cannot be read. */
  read(absolutePath: string): Promise<PythonModule | undefined> {
    let loaded = this.#cache.get(absolutePath);
    if (loaded === undefined) {
      loaded = this.#readUncached(absolutePath);
      this.#cache.set(absolutePath, loaded);
    }
    return loaded;
  }

  /** Frees every module's syntax tree; no module read here may be used after. */
  close(): void {
    this.#trees.release();
    this.#cache.clear();
  }

  /** The module `moduleName` names when imported from `from`, if it is a file of this project. */
  async resolve(moduleName: string, from: PythonModule): Promise<PythonModule | undefined> {
    const relative = /^(\.+)(.*)$/.exec(moduleName);
    let base: string;
    let rest: string;
    if (relative === null) {
      base = this.sourceRoot;
      rest = moduleName;
    } else {
      const dots = relative[1]?.length ?? 1;
      base = path.dirname(from.absolutePath);
      for (let level = 1; level < dots; level += 1) base = path.dirname(base);
      rest = relative[2] ?? '';
    }
    const segments = rest === '' ? [] : rest.split('.');
    const target = path.join(base, ...segments);
    for (const candidate of [`${target}.py`, path.join(target, '__init__.py')]) {
      if (!isInside(this.sourceRoot, candidate)) continue;
      const module = await this.read(candidate);
      if (module !== undefined) return module;
    }
    return undefined;
  }

  async #readUncached(absolutePath: string): Promise<PythonModule | undefined> {
    try {
      if (!(await stat(absolutePath)).isFile()) return undefined;
      const source = await readFile(absolutePath, 'utf8');
      const file = path.relative(this.crewRoot, absolutePath).split(path.sep).join('/');
      return await readPythonModule(source, file, absolutePath, this.#trees);
    } catch {
      return undefined;
    }
  }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * The folder absolute imports start from for a crew file in `packageDir`: the `src/` above it in a crewAI project
 * (a Flow's crews sit in `src/<package>/crews/<crew>/`), else the folder above the outermost package (folders with
 * `__init__.py`), else the folder above `packageDir`.
 */
export async function findSourceRoot(packageDir: string): Promise<string> {
  // No deeper than a Flow's crews: a `src` further up is some folder of the user's, not the project's.
  let dir = path.dirname(packageDir);
  for (let level = 0; level < 3 && path.dirname(dir) !== dir; level += 1, dir = path.dirname(dir)) {
    if (path.basename(dir) === 'src') return dir;
  }
  let top = packageDir;
  while (path.dirname(top) !== top && (await isFile(path.join(path.dirname(top), '__init__.py')))) {
    top = path.dirname(top);
  }
  return path.dirname(top);
}

async function isFile(candidate: string): Promise<boolean> {
  try {
    return (await stat(candidate)).isFile();
  } catch {
    return false;
  }
}
