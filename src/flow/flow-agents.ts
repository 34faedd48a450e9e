import type { AtomicActionDefinition, FlowDefinition } from './flow-definition.ts';

/** One agent a flow declares inline: in an `agent` action or in an inline crew's `agents`. */
export interface FlowAgent {
  readonly method: string;
  /** Where it is written, as messages name it: `methods.m.do.with`, `methods.m.do.with.agents.writer`. */
  readonly key: string;
  /** Its written fields (`settings` merged over them, as crewAI does for agent actions). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Every agent the flow writes inline, in method order; `from_declaration` crews are read when they run. */
export function flowAgents(definition: FlowDefinition): FlowAgent[] {
  const agents: FlowAgent[] = [];
  for (const method of definition.methods.values()) {
    const action = method.action;
    const atomics =
      action.call === 'each'
        ? action.steps.map((step, index) => ({
            atomic: step.action,
            where: `methods.${method.name}.do.do[${index}].action`,
          }))
        : [{ atomic: action, where: `methods.${method.name}.do` }];
    for (const { atomic, where } of atomics) agents.push(...agentsOf(method.name, atomic, where));
  }
  return agents;
}

function agentsOf(method: string, action: AtomicActionDefinition, where: string): FlowAgent[] {
  if (action.call === 'agent') {
    const { settings, ...fields } = action.agent;
    const merged = { ...fields, ...(isMapping(settings) ? settings : {}) };
    return [{ method, key: `${where}.with`, fields: merged }];
  }
  if (action.call !== 'crew' || action.source.kind !== 'inline') return [];
  const written = action.source.crew.agents;
  const entries: [string, unknown][] = Array.isArray(written)
    ? written.map((agent: unknown, index) => {
        if (!isMapping(agent)) return [`[${index}]`, agent];
        if ('name' in agent) return [String(agent.name), agent];
        const [first] = Object.entries(agent);
        return first ?? [`[${index}]`, agent];
      })
    : Object.entries(isMapping(written) ? written : {});
  return entries
    .filter((entry): entry is [string, Record<string, unknown>] => isMapping(entry[1]))
    .map(([name, fields]) => ({ method, key: `${where}.with.agents.${name}`, fields }));
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
