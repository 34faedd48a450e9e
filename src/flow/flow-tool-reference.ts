/** A Python object a flow names as `module:qualname` (crewAI's form for tool, code and state refs). */
export interface PythonReference {
  readonly module: string;
  readonly attribute: string;
}

const referencePattern = /^([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*):([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)$/;

/** crewAI's JSON loader's prefix for a project's own tool (`custom:file_read`): a name, not a Python module. */
const customPrefix = 'custom:';

/** `pkg.mod:Name` as module and attribute; undefined for anything else (a plain or `custom:` tool name). */
export function pythonReference(written: string): PythonReference | undefined {
  if (written.startsWith(customPrefix)) return undefined;
  const match = referencePattern.exec(written);
  return match === null ? undefined : { module: match[1]!, attribute: match[2]! };
}

/**
 * The name a flow agent's tool is looked up by. crewAI's flows name tools as Python refs
 * (`crewai_tools:SerperDevTool`, `my_project.tools.lookup:LookupTool`); crewd's registry knows tools by the class or
 * function name, so a project's `tools/LookupTool.ts` or a built-in of that name can stand in for it, as in crews.
 * `custom:file_read` (crewAI's JSON crews' name for a project tool) is `file_read`. A plain name (`SerperDevTool`,
 * `files.read_file`) is kept as it is.
 */
export function flowToolName(written: string): string {
  if (written.startsWith(customPrefix)) return written.slice(customPrefix.length);
  const reference = pythonReference(written);
  return reference === undefined ? written : (reference.attribute.split('.').at(-1) ?? written);
}

/** An agent's written fields with its `tools` named as the registry knows them. */
export function withRegistryToolNames(entry: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const tools: unknown = entry.tools;
  if (!Array.isArray(tools)) return { ...entry };
  return {
    ...entry,
    tools: tools.map((tool: unknown) => (typeof tool === 'string' ? flowToolName(tool) : tool)),
  };
}
