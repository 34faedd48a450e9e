import { stat } from 'node:fs/promises';
import path from 'node:path';
import { findJsoncCrew, loadJsoncCrew } from '../crew/load-jsonc-crew.ts';
import type { FlowAgent } from './flow-agents.ts';
import type { FlowDefinition } from './flow-definition.ts';

/**
 * The agents of the JSON/JSONC crews a flow's `from_declaration` actions name, so their tools are opened and checked
 * with the flow's. A crew file that does not read is left to fail its method when it runs, as in crewAI.
 */
export async function declaredCrewAgents(definition: FlowDefinition): Promise<FlowAgent[]> {
  const found: FlowAgent[] = [];
  for (const method of definition.methods.values()) {
    const action = method.action;
    const atomics = action.call === 'each' ? action.steps.map((step) => step.action) : [action];
    for (const atomic of atomics) {
      if (atomic.call !== 'crew' || atomic.source.kind !== 'declaration') continue;
      const resolved = path.resolve(definition.sourceDir ?? process.cwd(), atomic.source.path);
      const info = await stat(resolved).catch(() => undefined);
      const crewFile = info?.isDirectory() === true ? await findJsoncCrew(resolved) : resolved;
      if (crewFile === undefined) continue;
      const ignore = (): void => {};
      const entries = await loadJsoncCrew(crewFile, ignore, ignore).catch(() => undefined);
      for (const [name, agent] of entries?.agents ?? []) {
        found.push({
          method: method.name,
          key: `methods.${method.name}.do.from_declaration (agents/${name})`,
          fields: {
            ...(agent.tools == null ? {} : { tools: agent.tools }),
            ...(agent.mcps == null ? {} : { mcps: agent.mcps }),
          },
        });
      }
    }
  }
  return found;
}
