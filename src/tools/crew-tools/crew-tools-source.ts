import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CrewLoadError } from '../../domain/errors.ts';
import type { Tool } from '../../engine/tool.ts';
import type { ToolSource } from '../tool-source.ts';
import { isToolDefinition, toolFromDefinition } from './tool-from-definition.ts';

const label = "the crew's tools/ directory";
const moduleFile = /^[^.].*\.(ts|mts|js|mjs)$/;

/**
 * The TypeScript and JavaScript tools in a crew's `tools/` directory: every export of every module there that is
 * shaped like a tool (`defineTool(…)`, a plain object, or an array of them). A directory that does not exist holds
 * no tools. A module that fails to load, or exports no tool, stops the crew from loading with its file named.
 */
export function crewToolsSource(crewDir: string): ToolSource {
  const directory = path.join(crewDir, 'tools');
  const tools = new Map<string, Tool>();
  return {
    async open() {
      for (const file of await moduleFiles(directory)) {
        const relative = path.join('tools', file);
        for (const tool of await loadToolModule(path.join(directory, file), relative)) {
          if (tools.has(tool.name)) {
            throw new CrewLoadError(relative, `defines tool '${tool.name}' again; tool names must be unique`);
          }
          tools.set(tool.name, tool);
        }
      }
    },
    find: (name) => tools.get(name),
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

async function loadToolModule(file: string, relative: string): Promise<Tool[]> {
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
  if (found.length === 0) {
    throw new CrewLoadError(
      relative,
      'exports no tool: export default defineTool({ name, description, inputSchema, run }) or an object of that shape',
    );
  }
  return found.map((definition) => {
    try {
      return toolFromDefinition(definition);
    } catch (error) {
      throw new CrewLoadError(relative, (error as Error).message);
    }
  });
}

/**
 * TypeScript modules load through tsx, so a crew directory needs no build step; JavaScript ones load as they are.
 * tsx loads a module afresh on every call; a JavaScript module is named by its modification time as well, so a
 * reload (`serve --watch`) sees an edited file instead of the copy Node cached.
 */
async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (/\.m?js$/.test(file)) {
    const { mtimeMs } = await stat(file);
    return (await import(`${url}?modified=${mtimeMs}`)) as Record<string, unknown>;
  }
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
}
