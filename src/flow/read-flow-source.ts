import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import type { ScalarTag } from 'yaml';
import { FlowDefinitionError } from './flow-errors.ts';

/** A flow document as read from disk, before it is checked. */
export interface FlowSource {
  /** The file's name as messages show it. */
  readonly file: string;
  readonly data: Record<string, unknown>;
  readonly sourceDir: string;
  /** Top-level keys in file order. */
  readonly keys: readonly string[];
}

const boolTag = 'tag:yaml.org,2002:bool';

/** PyYAML's booleans: YAML 1.1's words but not `y`/`n`, which PyYAML (unlike the YAML 1.1 spec) keeps as text. */
const pyYamlBool: ScalarTag = {
  tag: boolTag,
  default: true,
  identify: (value) => typeof value === 'boolean',
  test: /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  resolve: (text) => /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/.test(text),
};

/** Names a directory may hold its flow under, in the order they are looked for. */
const flowFileNames = ['flow.yaml', 'flow.yml', 'flow.json'];

/**
 * Finds the flow file `target` names: the file itself, a directory's `flow.yaml` (or `.yml`, `.json`), or the
 * `definition` a crewAI project's pyproject.toml declares under `[tool.crewai]`. Undefined when it holds none.
 */
export async function findFlowFile(target: string): Promise<string | undefined> {
  const info = await stat(target).catch(() => undefined);
  if (info === undefined) return undefined;
  if (info.isFile()) return /\.(ya?ml|json)$/i.test(target) ? target : undefined;
  for (const name of flowFileNames) {
    const candidate = path.join(target, name);
    if ((await stat(candidate).catch(() => undefined))?.isFile() === true) return candidate;
  }
  return projectDefinition(target);
}

/** `[tool.crewai] definition = "…"` of a project's pyproject.toml: relative, inside the project, a file. */
async function projectDefinition(root: string): Promise<string | undefined> {
  const text = await readFile(path.join(root, 'pyproject.toml'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const section = /^\[tool\.crewai\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const declared = /^\s*definition\s*=\s*["']([^"']+)["']/m.exec(section)?.[1];
  if (declared === undefined) return undefined;
  const where = 'pyproject.toml';
  if (path.isAbsolute(declared)) {
    throw new FlowDefinitionError(
      where,
      `the flow definition path must be relative to the project: ${declared}`,
      'tool.crewai.definition',
    );
  }
  const realRoot = await realpath(root);
  const candidate = path.resolve(realRoot, declared);
  const real = await realpath(candidate).catch(() => undefined);
  if (real === undefined) {
    throw new FlowDefinitionError(
      where,
      `the flow definition file does not exist: ${declared}`,
      'tool.crewai.definition',
    );
  }
  const relative = path.relative(realRoot, real);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new FlowDefinitionError(
      where,
      `the flow definition path must stay inside the project: ${declared}`,
      'tool.crewai.definition',
    );
  }
  if (!(await stat(real)).isFile()) {
    throw new FlowDefinitionError(
      where,
      `the flow definition path is not a file: ${declared}`,
      'tool.crewai.definition',
    );
  }
  return real;
}

/**
 * Reads and parses a flow file as crewAI does: YAML (JSON being YAML) with YAML 1.1 scalars, as PyYAML reads them,
 * so `no` is a boolean and `1:30` is 90 there as here. Empty files and non-mappings get crewAI's messages.
 */
export async function readFlowSource(filePath: string): Promise<FlowSource> {
  const file = path.basename(filePath);
  const text = await readFile(filePath, 'utf8');
  if (text.trim() === '') throw new FlowDefinitionError(file, `Flow declaration file is empty: ${filePath}`);
  return { ...parseFlowText(text, file), sourceDir: path.dirname(path.resolve(filePath)) };
}

/** Parses flow text; `file` names it in messages. */
export function parseFlowText(text: string, file: string): Omit<FlowSource, 'sourceDir'> {
  if (text.trim() === '') throw new FlowDefinitionError(file, 'Flow declaration contents are empty');
  const document = parseDocument(text, {
    version: '1.1',
    merge: true,
    uniqueKeys: true,
    customTags: (tags) => [pyYamlBool, ...tags.filter((tag) => (tag as { tag?: string }).tag !== boolTag)],
  });
  const [error] = document.errors;
  if (error !== undefined)
    throw new FlowDefinitionError(file, `YAML syntax error: ${error.message.split('\n')[0] ?? ''}`);
  const data: unknown = document.toJS();
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new FlowDefinitionError(file, 'Flow declaration must contain a mapping');
  }
  const keys = isMap(document.contents)
    ? document.contents.items.map((pair) => String((pair.key as { value?: unknown } | null)?.value))
    : [];
  return { file, data: data as Record<string, unknown>, keys };
}
