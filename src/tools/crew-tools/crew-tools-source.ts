import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CrewLoadError } from '../../domain/errors.ts';
import type { Guardrail } from '../../engine/guardrail.ts';
import type { Tool } from '../../engine/tool.ts';
import type { ToolSource } from '../tool-source.ts';
import { guardrailFromDefinition, isGuardrailDefinition } from './guardrail-from-definition.ts';
import { isToolDefinition, toolFromDefinition } from './tool-from-definition.ts';

const label = "the crew's tools/ directory";
const moduleFile = /^[^.].*\.(ts|mts|js|mjs)$/;

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

async function moduleFiles(directory: string): Promise<string[]> {
  try {
    const entries = await readdir(directory, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && moduleFile.test(entry.name) && !entry.name.endsWith('.d.ts'))
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
  const definitions = Object.values(exports).flatMap((value) =>
    Array.isArray(value) ? (value as unknown[]) : [value],
  );
  const found = [...new Set(definitions.filter(isToolDefinition))];
  const foundGuardrails = [...new Set(definitions.filter(isGuardrailDefinition))];
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

/** TypeScript modules load through tsx, so a crew directory needs no build step; JavaScript ones load as they are. */
async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (/\.m?js$/.test(file)) return (await import(url)) as Record<string, unknown>;
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
}
