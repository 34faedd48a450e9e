import path from 'node:path';
import { buildFlow } from './build-flow.ts';
import type { BuildFlowOptions } from './build-flow.ts';
import type { FlowDefinition } from './flow-definition.ts';
import { FlowDefinitionError } from './flow-errors.ts';
import { findFlowFile, parseFlowText, readFlowSource } from './read-flow-source.ts';

/**
 * Loads a `crewai.flow/v1` flow from a YAML or JSON file, a directory holding `flow.yaml`, or a crewAI project
 * whose pyproject.toml declares one. Throws a FlowDefinitionError naming the file and the key.
 */
export async function loadFlow(target: string, options: BuildFlowOptions): Promise<FlowDefinition> {
  const file = await findFlowFile(target);
  if (file === undefined) {
    throw new FlowDefinitionError(
      path.basename(target),
      'holds no flow: expected a flow.yaml (or a YAML/JSON flow file)',
    );
  }
  return buildFlow(await readFlowSource(file), options);
}

/** Loads a flow from text (YAML or JSON); `from_declaration` paths are then relative to `sourceDir`. */
export function flowFromText(
  text: string,
  options: BuildFlowOptions & { file?: string; sourceDir?: string },
): FlowDefinition {
  const file = options.file ?? 'flow.yaml';
  return buildFlow({ ...parseFlowText(text, file), sourceDir: options.sourceDir ?? process.cwd() }, options);
}
