import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CrewLoadError } from '../../domain/errors.ts';
import type { Guardrail } from '../../engine/guardrail.ts';
import type { Tool } from '../../engine/tool.ts';
import type { ToolSource } from '../tool-source.ts';
import { exportedValues } from './exported-values.ts';
import { guardrailFromDefinition, isGuardrailDefinition } from './guardrail-from-definition.ts';
import { lendCrewdModules } from './lend-crewd-modules.ts';
import { isToolDefinition, toolFromDefinition } from './tool-from-definition.ts';

const label = "the crew's tools/ directory";
const moduleFile = /^[^.].*\.(ts|mts|cts|js|mjs|cjs)$/;
const declarationFile = /\.d\.[mc]?ts$/;

/**
 * The TypeScript and JavaScript tools and guardrails in a crew's `tools/` directory: every export of every module
 * there that is shaped like a tool (`defineTool(…)`, a plain object, or an array of them) or a guardrail
 * (`defineGuardrail(…)`). A directory that does not exist holds none. A module that fails to load, or exports
 * neither, stops the crew from loading with its file named.
 */
export function crewToolsSource(crewDir: string): ToolSource {
  const directory = path.join(crewDir, 'tools');
  const tools = new Map<string, Tool>();
  const guardrails = new Map<string, Guardrail>();
  return {
    async open() {
      forgetCachedModules(crewDir);
      for (const file of await moduleFiles(directory)) {
        const relative = path.join('tools', file);
        const loaded = await loadToolModule(path.join(directory, file), relative);
        for (const tool of loaded.tools) addUnique(tools, tool, relative, 'tool');
        for (const guardrail of loaded.guardrails) addUnique(guardrails, guardrail, relative, 'guardrail');
      }
    },
    find: (name) => tools.get(name),
    guardrail: (name) => guardrails.get(name),
    names: () => [...tools.keys()],
    status: () => ({ label, up: true }),
    close: () => Promise.resolve(),
  };
}

/**
 * Node keeps a CommonJS module (a `.cjs` file, and what it requires) for the life of the process, so a reload
 * (`serve --watch`) would see the copy it first loaded; the crew's own are dropped before loading. ES modules and
 * everything tsx compiles load afresh anyway.
 */
function forgetCachedModules(crewDir: string): void {
  const cache = createRequire(import.meta.url).cache;
  const inCrew = path.resolve(crewDir) + path.sep;
  for (const file of Object.keys(cache)) {
    if (file.startsWith(inCrew) && !file.includes(`${path.sep}node_modules${path.sep}`)) delete cache[file];
  }
}

async function moduleFiles(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && moduleFile.test(entry.name) && !declarationFile.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function addUnique<Item extends { readonly name: string }>(
  items: Map<string, Item>,
  item: Item,
  relative: string,
  kind: 'tool' | 'guardrail',
): void {
  if (items.has(item.name)) {
    throw new CrewLoadError(relative, `defines ${kind} '${item.name}' again; ${kind} names must be unique`);
  }
  items.set(item.name, item);
}

async function loadToolModule(
  file: string,
  relative: string,
): Promise<{ tools: Tool[]; guardrails: Guardrail[] }> {
  let exports: Record<string, unknown>;
  try {
    exports = await importModule(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CrewLoadError(relative, `could not be loaded: ${reason}`);
  }
  const definitions = exportedValues(exports);
  const found = definitions.filter(isToolDefinition);
  const foundGuardrails = definitions.filter(isGuardrailDefinition);
  if (found.length === 0 && foundGuardrails.length === 0) {
    throw new CrewLoadError(
      relative,
      'exports no tool: export default defineTool({ name, description, inputSchema, run }) or an object of that shape' +
        ' (or a guardrail: defineGuardrail({ name, check }))',
    );
  }
  const made =
    <Definition, Made>(convert: (definition: Definition) => Made) =>
    (definition: Definition) => {
      try {
        return convert(definition);
      } catch (error) {
        throw new CrewLoadError(relative, (error as Error).message);
      }
    };
  return {
    tools: found.map(made(toolFromDefinition)),
    guardrails: foundGuardrails.map(made(guardrailFromDefinition)),
  };
}

/**
 * Every module loads through tsx, so a crew directory needs no build step, and a module that imports another of the
 * crew's gets the same treatment whichever language either is written in. tsx loads a module afresh on every call,
 * so a reload (`serve --watch`) sees an edited file instead of the copy Node cached.
 */
async function importModule(file: string): Promise<Record<string, unknown>> {
  await lendCrewdModules();
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
}
