import type { JsonSchema } from '../../domain/crew.ts';
import { evaluatePython, resolveName, stringValue } from './evaluate-python.ts';
import type { PythonScope } from './evaluate-python.ts';
import type { Definition, PythonModule } from './python-module.ts';
import { lineOf, namedChildren } from './python-parser.ts';
import type { PythonNode } from './python-parser.ts';
import { excerpt } from './python-value.ts';

/** A class that could not be turned into JSON Schema, with the place and the reason. */
export class SchemaProblem extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'SchemaProblem';
  }
}

interface ClassRef {
  readonly name: string;
  readonly module: PythonModule;
  readonly definition: Definition;
}

type Context = Omit<PythonScope, 'module' | 'locals' | 'selfAttributes'> & {
  /** Classes being converted, to refuse self-referencing models instead of recursing forever. */
  readonly open: ReadonlySet<string>;
};

/**
 * Turns a Pydantic model class into the JSON Schema crewd checks answers against: str/int/float/bool, lists,
 * dicts, Optional and unions, nested models, Literal and Enum, and `Field(description=..., default=...)`.
 * Throws a SchemaProblem naming the line of anything it cannot express.
 */
export async function pydanticSchema(model: ClassRef, context: Omit<Context, 'open'>): Promise<JsonSchema> {
  return modelSchema(model, { ...context, open: new Set() });
}

async function modelSchema(model: ClassRef, context: Context): Promise<JsonSchema> {
  const key = `${model.module.absolutePath}#${model.name}`;
  const classNode = model.definition.node;
  if (context.open.has(key)) {
    throw new SchemaProblem(model.module.file, lineOf(classNode), `${model.name} refers to itself`);
  }
  const open = new Set(context.open).add(key);
  const inner = { ...context, open };
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];

  for (const base of await baseModels(model, context)) {
    const schema = await modelSchema(base, inner);
    Object.assign(properties, schema.properties);
    required.push(...((schema.required as string[] | undefined) ?? []));
  }

  const body = classNode.childForFieldName('body');
  let description: string | undefined;
  for (const [index, statement] of (body === null ? [] : namedChildren(body)).entries()) {
    if (statement.type !== 'expression_statement') continue;
    const expression = statement.firstNamedChild;
    if (index === 0 && expression?.type === 'string') description = stringValue(expression)?.trim();
    if (expression?.type !== 'assignment') continue;
    const name = expression.childForFieldName('left');
    const annotation = expression.childForFieldName('type');
    if (name?.type !== 'identifier' || annotation === null || name.text.startsWith('_')) continue;
    if (name.text === 'model_config') continue;
    const scope = { ...inner, module: model.module };
    const property = await typeSchema(annotation, model, scope);
    const right = expression.childForFieldName('right');
    const field = right === null ? undefined : await fieldInfo(right, scope);
    if (field?.description !== undefined) property.description = field.description;
    if (field?.default !== undefined) property.default = field.default;
    properties[name.text] = property;
    if (field === undefined || !field.hasDefault) required.push(name.text);
    else {
      const at = required.indexOf(name.text);
      if (at !== -1) required.splice(at, 1);
    }
  }

  return {
    type: 'object',
    title: model.name,
    ...(description === undefined || description === '' ? {} : { description }),
    properties,
    required: [...new Set(required)],
  };
}

/** The project classes a model inherits from, other than BaseModel itself; throws when it is not a model. */
async function baseModels(model: ClassRef, context: Context): Promise<ClassRef[]> {
  const bases: ClassRef[] = [];
  let isModel = false;
  const superclasses = model.definition.node.childForFieldName('superclasses');
  for (const base of superclasses === null ? [] : namedChildren(superclasses)) {
    if (base.type === 'keyword_argument') continue;
    const name = base.type === 'attribute' ? base.childForFieldName('attribute')?.text : base.text;
    if (name === 'BaseModel') {
      isModel = true;
      continue;
    }
    const resolved = await resolveName(base.text, model.module, context.modules);
    if (resolved !== undefined && 'symbol' in resolved && resolved.symbol.kind === 'class') {
      bases.push(resolved.symbol);
      isModel = true;
    }
  }
  if (!isModel) {
    throw new SchemaProblem(
      model.module.file,
      lineOf(model.definition.node),
      `${model.name} is not a Pydantic model (no BaseModel base class found)`,
    );
  }
  return bases;
}

async function fieldInfo(
  node: PythonNode,
  scope: Context & { module: PythonModule },
): Promise<{ hasDefault: boolean; default?: unknown; description?: string } | undefined> {
  const value = await evaluatePython(node, scope);
  if (value.kind === 'call' && value.callee.kind === 'external' && value.callee.name === 'Field') {
    const description = value.kwargs.get('description');
    const explicit = value.kwargs.get('default') ?? value.args[0];
    const hasEllipsis = explicit?.node.type === 'ellipsis';
    const hasDefault = (explicit !== undefined && !hasEllipsis) || value.kwargs.has('default_factory');
    return {
      hasDefault,
      ...(explicit?.kind === 'data' ? { default: explicit.value } : {}),
      ...(description?.kind === 'data' && typeof description.value === 'string'
        ? { description: description.value }
        : {}),
    };
  }
  if (node.type === 'ellipsis') return undefined;
  return { hasDefault: true, ...(value.kind === 'data' ? { default: value.value } : {}) };
}

const scalarTypes: Record<string, JsonSchema> = {
  str: { type: 'string' },
  int: { type: 'integer' },
  float: { type: 'number' },
  bool: { type: 'boolean' },
  dict: { type: 'object' },
  Dict: { type: 'object' },
  list: { type: 'array' },
  List: { type: 'array' },
  Any: {},
  datetime: { type: 'string', format: 'date-time' },
  date: { type: 'string', format: 'date' },
  HttpUrl: { type: 'string', format: 'uri' },
  AnyUrl: { type: 'string', format: 'uri' },
  EmailStr: { type: 'string', format: 'email' },
};

async function typeSchema(
  node: PythonNode,
  owner: ClassRef,
  scope: Context & { module: PythonModule },
): Promise<JsonSchema> {
  const fail = (): never => {
    throw new SchemaProblem(
      owner.module.file,
      lineOf(node),
      `${owner.name}: the type \`${excerpt(node)}\` has no JSON Schema form crewd knows`,
    );
  };
  switch (node.type) {
    case 'type': {
      const inner = node.firstNamedChild;
      return inner === null ? fail() : typeSchema(inner, owner, scope);
    }
    case 'none':
      return { type: 'null' };
    case 'string': {
      // A forward reference: `"Report"`.
      const name = stringValue(node);
      return name === undefined ? fail() : namedTypeSchema(name, scope, fail);
    }
    case 'identifier':
      return namedTypeSchema(node.text, scope, fail);
    case 'attribute': {
      const name = node.childForFieldName('attribute')?.text;
      return name === undefined ? fail() : namedTypeSchema(name, scope, fail);
    }
    case 'binary_operator': {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (left === null || right === null || node.childForFieldName('operator')?.text !== '|') return fail();
      return union([await typeSchema(left, owner, scope), await typeSchema(right, owner, scope)]);
    }
    case 'generic_type':
    case 'subscript': {
      const head = node.type === 'generic_type' ? node.firstNamedChild : node.childForFieldName('value');
      const parameters = typeParameters(node);
      const name = head?.type === 'attribute' ? head.childForFieldName('attribute')?.text : head?.text;
      const schemas = async (): Promise<JsonSchema[]> =>
        Promise.all(parameters.map((parameter) => typeSchema(parameter, owner, scope)));
      switch (name ?? '') {
        case 'list':
        case 'List':
        case 'set':
        case 'Set':
        case 'Sequence': {
          const [items] = await schemas();
          return items === undefined ? { type: 'array' } : { type: 'array', items };
        }
        case 'tuple':
        case 'Tuple':
          return { type: 'array' };
        case 'dict':
        case 'Dict':
        case 'Mapping': {
          const [, values] = await schemas();
          return values === undefined ? { type: 'object' } : { type: 'object', additionalProperties: values };
        }
        case 'Optional': {
          const [inner] = await schemas();
          return inner === undefined ? fail() : union([inner, { type: 'null' }]);
        }
        case 'Union':
          return union(await schemas());
        case 'Literal': {
          const values: unknown[] = [];
          for (const parameter of parameters) {
            const literal = parameter.type === 'type' ? parameter.firstNamedChild : parameter;
            const value = literal === null ? undefined : await evaluatePython(literal, scope);
            if (value?.kind !== 'data') return fail();
            values.push(value.value);
          }
          return { enum: values };
        }
        case 'Annotated': {
          const [inner] = await schemas();
          return inner ?? fail();
        }
        default:
          return fail();
      }
    }
    default:
      return fail();
  }
}

function typeParameters(node: PythonNode): PythonNode[] {
  if (node.type === 'generic_type') {
    const parameterList = namedChildren(node).find((child) => child.type === 'type_parameter');
    return parameterList === undefined ? [] : namedChildren(parameterList);
  }
  const subscript = node.childForFieldName('subscript');
  if (subscript === null) return [];
  return subscript.type === 'tuple' ? namedChildren(subscript) : [subscript];
}

async function namedTypeSchema(
  name: string,
  scope: Context & { module: PythonModule },
  fail: () => never,
): Promise<JsonSchema> {
  const resolved = await resolveName(name, scope.module, scope.modules);
  if (resolved !== undefined && 'symbol' in resolved && resolved.symbol.kind === 'class') {
    const symbol = resolved.symbol;
    const enumValues = await enumMembers(symbol, scope);
    if (enumValues !== undefined) return { enum: enumValues };
    return modelSchema(symbol, scope);
  }
  const scalar = scalarTypes[name];
  if (scalar !== undefined) return { ...scalar };
  return fail();
}

/** The values of an `Enum` subclass, or undefined when the class is not one. */
async function enumMembers(symbol: ClassRef, scope: Context): Promise<unknown[] | undefined> {
  const superclasses = symbol.definition.node.childForFieldName('superclasses');
  const bases = superclasses === null ? [] : namedChildren(superclasses).map((base) => base.text);
  if (!bases.some((base) => /(^|\.)(Str|Int)?Enum$/.test(base))) return undefined;
  const values: unknown[] = [];
  const body = symbol.definition.node.childForFieldName('body');
  for (const statement of body === null ? [] : namedChildren(body)) {
    const assignment = statement.firstNamedChild;
    if (statement.type !== 'expression_statement' || assignment?.type !== 'assignment') continue;
    const right = assignment.childForFieldName('right');
    if (right === null) continue;
    const value = await evaluatePython(right, { ...scope, module: symbol.module });
    if (value.kind === 'data') values.push(value.value);
  }
  return values;
}

function union(members: JsonSchema[]): JsonSchema {
  return members.length === 1 && members[0] !== undefined ? members[0] : { anyOf: members };
}
