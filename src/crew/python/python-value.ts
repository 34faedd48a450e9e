import type { Definition, PythonModule } from './python-module.ts';
import type { PythonNode } from './python-parser.ts';

/** What a name stands for once followed through imports. */
export type PythonSymbol =
  | {
      readonly kind: 'class';
      readonly name: string;
      readonly module: PythonModule;
      readonly definition: Definition;
    }
  | {
      readonly kind: 'function';
      readonly name: string;
      readonly module: PythonModule;
      readonly definition: Definition;
    }
  /** A name from outside the project (`crewai`, `crewai_tools`, ...), dotted when reached through attributes. */
  | {
      readonly kind: 'external';
      readonly module: string;
      readonly name: string;
      /** The project module whose import brought the name in, so `name.attribute` can follow a submodule. */
      readonly importedIn?: PythonModule;
    };

/**
 * The static value of a Python expression: as much as can be known without running it.
 * `data` holds plain JSON-like values (str, int, float, bool, None, and lists and dicts of them).
 */
export type PythonValue =
  | { readonly kind: 'data'; readonly value: unknown; readonly node: PythonNode }
  | { readonly kind: 'list'; readonly items: readonly PythonValue[]; readonly node: PythonNode }
  | {
      readonly kind: 'call';
      readonly callee: PythonSymbol;
      readonly args: readonly PythonValue[];
      readonly kwargs: ReadonlyMap<string, PythonValue>;
      readonly node: PythonNode;
      /** The module the call is written in, for naming where it came from. */
      readonly module: PythonModule;
    }
  | { readonly kind: 'symbol'; readonly symbol: PythonSymbol; readonly node: PythonNode }
  /** `self.agents_config['x']` / `self.tasks_config['x']`. */
  | {
      readonly kind: 'config';
      readonly section: 'agents' | 'tasks';
      readonly key: string;
      readonly node: PythonNode;
    }
  /** `self.method()`: in a CrewBase class, another agent or task. */
  | { readonly kind: 'method-call'; readonly method: string; readonly node: PythonNode }
  | { readonly kind: 'unreadable'; readonly node: PythonNode };

/** The plain value, when the whole value is plain data. */
export function plainValue(value: PythonValue): { value: unknown } | undefined {
  if (value.kind === 'data') return { value: value.value };
  return undefined;
}

/** A short excerpt of the source of a node, for messages. */
export function excerpt(node: PythonNode): string {
  const text = node.text.replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
