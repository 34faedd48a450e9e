import type { PackageModules, PythonModule } from './python-module.ts';
import { namedChildren } from './python-parser.ts';
import type { PythonNode } from './python-parser.ts';
import type { PythonSymbol, PythonValue } from './python-value.ts';

/** Where an expression is read: its module, the variables of the function around it, and the environment. */
export interface PythonScope {
  readonly module: PythonModule;
  readonly modules: PackageModules;
  /** `os.getenv(...)` reads this, as the Python would at import time. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Assignments in the function being read, before its `return`. */
  readonly locals?: ReadonlyMap<string, PythonNode>;
  /** Assignments in the class body, reached through `self.name`. */
  readonly selfAttributes?: ReadonlyMap<string, PythonNode>;
}

// Follows names through assignments and imports; a cycle (`a = b`, `b = a`) stops here instead of recursing.
const maxDepth = 20;

/** The static value of an expression. Never throws: what cannot be known is `unreadable`. */
export async function evaluatePython(node: PythonNode, scope: PythonScope, depth = 0): Promise<PythonValue> {
  const unreadable: PythonValue = { kind: 'unreadable', node };
  if (depth > maxDepth) return unreadable;
  const next = (child: PythonNode, childScope: PythonScope = scope): Promise<PythonValue> =>
    evaluatePython(child, childScope, depth + 1);

  switch (node.type) {
    case 'string':
    case 'concatenated_string': {
      const text = stringValue(node);
      return text === undefined ? unreadable : { kind: 'data', value: text, node };
    }
    case 'integer': {
      const value = Number(node.text.replace(/_/g, ''));
      return Number.isFinite(value) ? { kind: 'data', value, node } : unreadable;
    }
    case 'float': {
      const value = Number(node.text.replace(/_/g, ''));
      return Number.isFinite(value) ? { kind: 'data', value, node } : unreadable;
    }
    case 'true':
      return { kind: 'data', value: true, node };
    case 'false':
      return { kind: 'data', value: false, node };
    case 'none':
      return { kind: 'data', value: null, node };
    case 'parenthesized_expression': {
      const inner = node.firstNamedChild;
      return inner === null ? unreadable : next(inner);
    }
    case 'unary_operator': {
      const argument = node.childForFieldName('argument');
      const operator = node.childForFieldName('operator')?.text ?? node.child(0)?.text;
      if (argument === null) return unreadable;
      const value = await next(argument);
      if (value.kind !== 'data' || typeof value.value !== 'number') return unreadable;
      if (operator === '-') return { kind: 'data', value: -value.value, node };
      return operator === '+' ? { kind: 'data', value: value.value, node } : unreadable;
    }
    case 'binary_operator': {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (left === null || right === null || node.childForFieldName('operator')?.text !== '+')
        return unreadable;
      const [a, b] = await Promise.all([next(left), next(right)]);
      if (
        a.kind === 'data' &&
        b.kind === 'data' &&
        typeof a.value === 'string' &&
        typeof b.value === 'string'
      ) {
        return { kind: 'data', value: a.value + b.value, node };
      }
      return unreadable;
    }
    case 'list':
    case 'tuple': {
      const items: PythonValue[] = [];
      for (const child of namedChildren(node)) {
        if (child.type === 'comment') continue;
        items.push(await next(child));
      }
      if (items.every((item) => item.kind === 'data')) {
        return { kind: 'data', value: items.map((item) => (item.kind === 'data' ? item.value : null)), node };
      }
      return { kind: 'list', items, node };
    }
    case 'dictionary': {
      const result: Record<string, unknown> = {};
      for (const pair of namedChildren(node)) {
        if (pair.type === 'comment') continue;
        if (pair.type !== 'pair') return unreadable;
        const keyNode = pair.childForFieldName('key');
        const valueNode = pair.childForFieldName('value');
        if (keyNode === null || valueNode === null) return unreadable;
        const [key, value] = await Promise.all([next(keyNode), next(valueNode)]);
        if (key.kind !== 'data' || typeof key.value !== 'string' || value.kind !== 'data') return unreadable;
        result[key.value] = value.value;
      }
      return { kind: 'data', value: result, node };
    }
    case 'identifier': {
      const local = scope.locals?.get(node.text);
      if (local !== undefined) {
        // A local refers to what was assigned before it, without the locals themselves (no `x = x + 1` loops).
        const { locals: _locals, ...outer } = scope;
        return next(local, outer);
      }
      const resolved = await resolveName(node.text, scope.module, scope.modules, depth + 1);
      if (resolved === undefined) return unreadable;
      if ('symbol' in resolved) return { kind: 'symbol', symbol: resolved.symbol, node };
      return next(resolved.value, { module: resolved.module, modules: scope.modules, env: scope.env });
    }
    case 'attribute': {
      const object = node.childForFieldName('object');
      const attribute = node.childForFieldName('attribute')?.text;
      if (object === null || attribute === undefined) return unreadable;
      if (object.text === 'self') {
        const assigned = scope.selfAttributes?.get(attribute);
        return assigned === undefined ? unreadable : next(assigned, { ...scope, locals: new Map() });
      }
      const base = await next(object);
      if (base.kind === 'symbol' && base.symbol.kind === 'external') {
        const inSubmodule = await submoduleName(base.symbol, attribute, scope.modules, depth + 1);
        if (inSubmodule !== undefined) {
          if ('symbol' in inSubmodule) return { kind: 'symbol', symbol: inSubmodule.symbol, node };
          return next(inSubmodule.value, {
            module: inSubmodule.module,
            modules: scope.modules,
            env: scope.env,
          });
        }
        const symbol: PythonSymbol = { ...base.symbol, name: `${base.symbol.name}.${attribute}` };
        return { kind: 'symbol', symbol, node };
      }
      return unreadable;
    }
    case 'subscript': {
      const value = node.childForFieldName('value');
      const subscript = node.childForFieldName('subscript');
      if (value === null || subscript === null) return unreadable;
      const key = await next(subscript);
      if (key.kind !== 'data' || typeof key.value !== 'string') return unreadable;
      if (value.text === 'self.agents_config' || value.text === 'self.tasks_config') {
        const section = value.text === 'self.agents_config' ? 'agents' : 'tasks';
        return { kind: 'config', section, key: key.value, node };
      }
      if (value.text === 'os.environ') {
        const found = scope.env[key.value];
        return found === undefined ? unreadable : { kind: 'data', value: found, node };
      }
      return unreadable;
    }
    case 'call':
      return evaluateCall(node, scope, depth);
    default:
      return unreadable;
  }
}

async function evaluateCall(node: PythonNode, scope: PythonScope, depth: number): Promise<PythonValue> {
  const unreadable: PythonValue = { kind: 'unreadable', node };
  const callee = node.childForFieldName('function');
  const argumentList = node.childForFieldName('arguments');
  if (callee === null || argumentList === null) return unreadable;

  const args: PythonValue[] = [];
  const kwargs = new Map<string, PythonValue>();
  for (const argument of namedChildren(argumentList)) {
    if (argument.type === 'comment') continue;
    if (argument.type === 'keyword_argument') {
      const name = argument.childForFieldName('name')?.text;
      const value = argument.childForFieldName('value');
      if (name === undefined || value === null) return unreadable;
      kwargs.set(name, await evaluatePython(value, scope, depth + 1));
    } else if (argument.type === 'list_splat' || argument.type === 'dictionary_splat') {
      return unreadable;
    } else {
      args.push(await evaluatePython(argument, scope, depth + 1));
    }
  }

  if (['os.getenv', 'getenv', 'os.environ.get'].includes(callee.text)) {
    const [name, fallback] = args;
    if (name?.kind !== 'data' || typeof name.value !== 'string') return unreadable;
    const found = scope.env[name.value];
    if (found !== undefined) return { kind: 'data', value: found, node };
    const fallbackValue = fallback ?? kwargs.get('default');
    return fallbackValue ?? { kind: 'data', value: null, node };
  }
  if (callee.type === 'attribute' && callee.childForFieldName('object')?.text === 'self') {
    const method = callee.childForFieldName('attribute')?.text;
    return method === undefined ? unreadable : { kind: 'method-call', method, node };
  }
  const target = await evaluatePython(callee, scope, depth + 1);
  if (target.kind !== 'symbol') return unreadable;
  return { kind: 'call', callee: target.symbol, args, kwargs, node, module: scope.module };
}

/** What a module-level name stands for: a class, function or outside name, or an assigned expression. */
export async function resolveName(
  name: string,
  module: PythonModule,
  modules: PackageModules,
  depth = 0,
): Promise<{ symbol: PythonSymbol } | { value: PythonNode; module: PythonModule } | undefined> {
  if (depth > maxDepth) return undefined;
  const classDefinition = module.classes.get(name);
  if (classDefinition !== undefined) {
    return { symbol: { kind: 'class', name, module, definition: classDefinition } };
  }
  const functionDefinition = module.functions.get(name);
  if (functionDefinition !== undefined) {
    return { symbol: { kind: 'function', name, module, definition: functionDefinition } };
  }
  const assigned = module.assignments.get(name);
  if (assigned !== undefined) return { value: assigned, module };
  const imported = module.imports.get(name);
  if (imported !== undefined) {
    const target = await modules.resolve(imported.module, module);
    if (target !== undefined) {
      const found = await resolveName(imported.name, target, modules, depth + 1);
      if (found !== undefined) return found;
    }
    return { symbol: { kind: 'external', module: imported.module, name: imported.name, importedIn: module } };
  }
  if (pythonBuiltins.has(name)) return { symbol: { kind: 'external', module: 'builtins', name } };
  return undefined;
}

/**
 * `types.Report` where `types` came from `from pkg import types` (or `import pkg.types as types`): `Report` in the
 * project module `pkg/types.py`, when there is one.
 */
async function submoduleName(
  symbol: Extract<PythonSymbol, { kind: 'external' }>,
  attribute: string,
  modules: PackageModules,
  depth: number,
): ReturnType<typeof resolveName> {
  if (symbol.importedIn === undefined || symbol.name.includes('.')) return undefined;
  const moduleName = symbol.module.endsWith('.')
    ? `${symbol.module}${symbol.name}`
    : `${symbol.module}.${symbol.name}`;
  const submodule = await modules.resolve(moduleName, symbol.importedIn);
  return submodule === undefined ? undefined : resolveName(attribute, submodule, modules, depth);
}

const pythonBuiltins = new Set(['str', 'int', 'float', 'bool', 'list', 'dict', 'tuple', 'set', 'object']);

/** The text of a string literal (or adjacent literals); undefined for f-strings with `{...}` and bytes. */
export function stringValue(node: PythonNode): string | undefined {
  if (node.type === 'concatenated_string') {
    let joined = '';
    for (const part of namedChildren(node)) {
      const text = stringValue(part);
      if (text === undefined) return undefined;
      joined += text;
    }
    return joined;
  }
  if (node.type !== 'string') return undefined;
  const prefix = (node.firstChild?.text ?? '').replace(/["']+$/, '').toLowerCase();
  if (prefix.includes('b')) return undefined;
  const raw = prefix.includes('r');
  let text = '';
  for (const child of namedChildren(node)) {
    if (child.type === 'interpolation') return undefined;
    if (child.type === 'string_content') text += raw ? child.text : unescapeContent(child.text);
    else if (child.type === 'escape_sequence') text += raw ? child.text : unescape(child.text);
  }
  return text;
}

// tree-sitter-python leaves some escapes inside string_content (line continuations, unknown escapes).
function unescapeContent(text: string): string {
  return text.replace(/\\\r?\n/g, '');
}

function unescape(sequence: string): string {
  const simple: Record<string, string> = {
    '\\n': '\n',
    '\\t': '\t',
    '\\r': '\r',
    '\\\\': '\\',
    "\\'": "'",
    '\\"': '"',
    '\\0': '\0',
  };
  const known = simple[sequence];
  if (known !== undefined) return known;
  const hex = /^\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))$/.exec(sequence);
  const code = hex?.[1] ?? hex?.[2] ?? hex?.[3];
  if (code !== undefined) return String.fromCodePoint(Number.parseInt(code, 16));
  if (/^\\\r?\n$/.test(sequence)) return '';
  return sequence;
}
