export {
  builtinToolNames,
  builtinToolSource,
  createBuiltinTool,
  isBuiltinToolName,
} from './builtin-tool-source.ts';
export type { BuiltinToolOptions } from './builtin-tool-options.ts';
