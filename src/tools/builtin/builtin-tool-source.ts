import { canonicalJson } from '../../domain/canonical-json.ts';
import { CrewdError } from '../../domain/errors.ts';
import type { Tool } from '../../engine/tool.ts';
import { staticToolSource } from '../tool-source.ts';
import type { ToolSource } from '../tool-source.ts';
import type { BuiltinToolOptions } from './builtin-tool-options.ts';
import type { BuiltinToolFactory } from './define-builtin-tool.ts';
import { directoryReadTool } from './directory-read-tool.ts';
import { fileReadTool } from './file-read-tool.ts';
import { fileWriterTool } from './file-writer-tool.ts';
import { scrapeWebsiteTool } from './scrape-website-tool.ts';
import { serperDevTool } from './serper-dev-tool.ts';

const factories: ReadonlyMap<string, BuiltinToolFactory> = new Map(
  [serperDevTool, scrapeWebsiteTool, fileReadTool, fileWriterTool, directoryReadTool].map((factory) => [
    factory.name,
    factory,
  ]),
);

/** The names crews use for the built-in tools: crewAI's class names. */
export const builtinToolNames: readonly string[] = [...factories.keys()];

export function isBuiltinToolName(name: string): boolean {
  return factories.has(name);
}

/**
 * One built-in tool, optionally with preset arguments as crewAI's constructors take them
 * (`ScrapeWebsiteTool(website_url="…")`): the model does not see or pass those. Throws a `CREW_INVALID` error for
 * an unknown name, or a preset the tool does not take, naming the tool.
 */
export function createBuiltinTool(
  name: string,
  options: BuiltinToolOptions,
  presets?: Readonly<Record<string, unknown>>,
): Tool {
  const factory = factories.get(name);
  if (factory === undefined) {
    throw new CrewdError(
      'CREW_INVALID',
      `There is no built-in tool named '${name}'; the built-in tools are ${builtinToolNames.join(', ')}`,
    );
  }
  return factory.create(options, presets);
}

/**
 * The built-in tools as a source of the tool registry: without presets by name, and with the presets crew.py gives
 * an agent or a task through `withPresets` (one instance per distinct set, made on first use).
 */
export function builtinToolSource(options: BuiltinToolOptions): ToolSource {
  const plain = staticToolSource(
    'built-in tools',
    builtinToolNames.map((name) => createBuiltinTool(name, options)),
  );
  const preset = new Map<string, Tool>();
  return {
    ...plain,
    withPresets(name, presets) {
      if (!isBuiltinToolName(name)) return undefined;
      const key = `${name}\u0000${canonicalJson(presets)}`;
      let tool = preset.get(key);
      if (tool === undefined) {
        tool = createBuiltinTool(name, options, presets);
        preset.set(key, tool);
      }
      return tool;
    },
  };
}
