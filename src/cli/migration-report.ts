import { defaultGuardrailMaxRetries, positionalArgumentsKey } from '../domain/crew.ts';
import type { AgentDefinition, CrewDefinition, ModelSpec, TaskDefinition } from '../domain/crew.ts';
import { findGuardrail } from '../engine/guardrails.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import type { ToolRegistry } from '../engine/tool.ts';
import { managerAgent } from '../engine/manager-agent.ts';
import { processFor } from '../engine/crew-process.ts';
import { checkCrew } from '../engine/check-crew.ts';
import { agentToolCallingModel } from '../engine/agent-resources.ts';
import { sourceName, type ToolSourceStatus } from '../tools/tool-source.ts';
import type { CredentialStatus } from './crew-credentials.ts';

/** What `crewd check` found while loading a crew. */
export interface LoadFindings {
  readonly warnings: readonly string[];
  /** Parts of the project crewd does not honour (crew.py it cannot read, crewAI keys it does not act on). */
  readonly dropped: readonly string[];
  /** Tool sources that cannot be used now: MCP servers not reached, or whose `${VAR}` is not set. */
  readonly unavailable?: readonly ToolSourceStatus[];
  /** The credentials the crew needs and whether each is set (crewCredentials). */
  readonly credentials?: readonly CredentialStatus[];
  /** Tool sources that list their tools (the project's Python tools: where each is defined, what runs it). */
  readonly listed?: readonly ToolSourceStatus[];
}

/**
 * A list the report closes with. `problems` is how many of its items keep crewd from running the crew as written;
 * the verdict is their sum, so nothing listed as left out can sit above "Nothing is left out".
 */
export interface ReportSection {
  readonly title: string;
  readonly items: readonly string[];
  readonly problems: number;
}

export interface MigrationReport {
  readonly text: string;
  /** The sum of the sections' problems: what is left out, cannot be used or missing, and what stops the start. */
  readonly problems: number;
}

/**
 * The migration report of `crewd check`: what crewd will run (agents with model and tools and where each comes
 * from, tasks with agent, context and output, required inputs), then the credentials it needs and, section by
 * section, everything it will not honour, cannot use or would refuse, closed by a verdict counted from the sections.
 */
export function migrationReport(
  crew: CrewDefinition,
  findings: LoadFindings,
  resources: { models: ModelResolver; tools: ToolRegistry; defaultModel: string | undefined },
): MigrationReport {
  const blocking: string[] = [];
  const lines: string[] = [`Crew ${crew.name} (${crew.process} process)`];
  try {
    processFor(crew.process);
    if (crew.process === 'hierarchical') {
      const source = crew.managerAgent === undefined ? 'built from manager_llm' : 'manager_agent';
      const manager = managerAgent(crew);
      lines.push(`Manager: ${manager.role} (${source}), delegating each task to its agent`);
      // A manager_agent's model is resolved with the other agents'; a built manager's is the manager_llm.
      if (crew.managerAgent === undefined && manager.llm !== undefined) {
        resolveInto(resources.models, manager.llm, 'the manager', blocking);
      }
    }
  } catch (error) {
    blocking.push(messageOf(error));
  }

  lines.push('', 'Agents:');
  for (const agent of crew.agents.values()) {
    const model = modelOf(crew, agent, resources.defaultModel);
    if (model.id !== undefined) {
      resolveInto(resources.models, model.spec, `agent ${agent.name}`, blocking);
    } else {
      blocking.push(`agent ${agent.name} has no model: set its llm, the crew's llm or the MODEL variable`);
    }
    lines.push(`  ${agent.name} (${agent.role})`);
    lines.push(`    model: ${model.id ?? 'none'} (${model.source})`);
    const toolCalling = agentToolCallingModel({ crew }, agent);
    if (toolCalling !== undefined) {
      resolveInto(resources.models, toolCalling, `agent ${agent.name}'s function_calling_llm`, blocking);
      lines.push(`    tool-calling model: ${toolCalling.model}`);
    }
    lines.push(
      `    tools: ${describeTools(crew, agent.tools, resources.tools, blocking, `agent ${agent.name}`, agent.toolArguments)}`,
    );
    if (agent.mcps !== undefined && agent.mcps.length > 0) {
      lines.push(`    mcps: ${describeMcps(agent.name, agent.mcps, resources.tools, blocking)}`);
    }
  }

  lines.push('', 'Tasks, in the order they run:');
  for (const [index, task] of crew.tasks.entries()) {
    const lead =
      task.agent === undefined ? 'the manager, with every agent as a coworker' : `agent ${task.agent}`;
    lines.push(`  ${index + 1}. ${task.name}: ${lead}`);
    lines.push(`     context: ${describeContext(task, index)}`);
    lines.push(`     output: ${describeOutput(task)}${task.humanInput ? ', reviewed by a person' : ''}`);
    if (task.outputFile !== undefined) {
      lines.push(`     saved to: ${task.outputFile} (in the execution's workspace)`);
    }
    if (task.tools !== undefined) {
      lines.push(
        `     tools: ${describeTools(crew, task.tools, resources.tools, blocking, `task ${task.name}`, task.toolArguments)}`,
      );
    }
    if (task.guardrails !== undefined) {
      lines.push(`     guardrails: ${describeGuardrails(task, resources.tools, blocking)}`);
    }
  }

  lines.push(
    '',
    `Required inputs: ${crew.requiredInputs.length === 0 ? 'none' : crew.requiredInputs.join(', ')}`,
  );

  if (crew.process !== 'hierarchical' && crew.managerLlm !== undefined) {
    resolveInto(resources.models, crew.managerLlm, "the crew's manager_llm", blocking);
  }
  // What `serve` and `run` check before starting: anything they would refuse is in the report, whatever it is.
  if (blocking.length === 0) {
    try {
      checkCrew(crew, resources);
    } catch (error) {
      blocking.push(messageOf(error));
    }
  }

  const sections = [
    ...(findings.listed ?? []).map(listingSection),
    ...(findings.credentials === undefined ? [] : [credentialsSection(findings.credentials)]),
    notHonouredSection(findings.dropped),
    unavailableSection(findings.unavailable ?? []),
    blockingSection(blocking),
    warningsSection(findings.warnings),
  ];
  for (const { title, items } of sections) {
    if (items.length === 0) continue;
    lines.push('', title);
    for (const item of items) lines.push(`  - ${item}`);
  }
  const problems = sections.reduce((sum, section) => sum + section.problems, 0);
  lines.push('', verdict(problems));
  return { text: `${lines.join('\n')}\n`, problems };
}

/** The closing line, from the sections' count alone. */
export function verdict(problems: number): string {
  return problems === 0
    ? 'Nothing is left out: crewd runs this crew as written.'
    : `${problems} ${problems === 1 ? 'problem' : 'problems'}: crewd does not run this crew as written.`;
}

/** A source's own list of its tools; informative, never a problem (a source that cannot open is refused). */
function listingSection(source: ToolSourceStatus): ReportSection {
  return { title: `${source.label}:`, items: source.listing ?? [], problems: 0 };
}

function notHonouredSection(dropped: readonly string[]): ReportSection {
  return {
    title: 'Not honoured (left out when run with --allow-partial):',
    items: dropped,
    problems: dropped.length,
  };
}

function unavailableSection(down: readonly ToolSourceStatus[]): ReportSection {
  const items = down.map(
    (source) => `${sourceName(source)} cannot be used: ${source.reason ?? 'not connected'}`,
  );
  return {
    title: 'Tool sources that cannot be used (serve and run start without them only with --allow-partial):',
    items,
    problems: items.length,
  };
}

function blockingSection(blocking: readonly string[]): ReportSection {
  return { title: 'Stops the crew from starting:', items: blocking, problems: blocking.length };
}

function warningsSection(warnings: readonly string[]): ReportSection {
  return { title: 'Warnings:', items: warnings, problems: 0 };
}

/**
 * Each credential with where it is set, never its value. One that is missing counts unless something else in the
 * report already does (a model's key stops its agent in "Stops the crew from starting", an MCP variable its server).
 */
function credentialsSection(credentials: readonly CredentialStatus[]): ReportSection {
  const items = credentials.map((credential) => {
    const where =
      credential.setIn === undefined
        ? 'NOT SET'
        : credential.setIn === 'environment'
          ? 'set in the environment'
          : "set in the project's .env";
    return `${credential.variables}: ${where} (${credential.usedBy})`;
  });
  const problems = credentials.filter(
    (credential) => credential.setIn === undefined && !credential.reportedElsewhere,
  ).length;
  return { title: 'Credentials:', items, problems };
}

/** The task's guardrails in the order they run; a function no tools/ module defines stops the crew. */
function describeGuardrails(task: TaskDefinition, registry: ToolRegistry, blocking: string[]): string {
  const retries = task.guardrailMaxRetries ?? defaultGuardrailMaxRetries;
  const checks = (task.guardrails ?? []).map((spec) => {
    if (spec.kind === 'llm') return `"${spec.description}" (checked by the agent's model)`;
    try {
      findGuardrail(registry, task, spec);
      return `${spec.name} (tools/)`;
    } catch (error) {
      blocking.push(messageOf(error));
      return `${spec.name} (not available)`;
    }
  });
  return `${checks.join(', ')}; up to ${retries} ${retries === 1 ? 'retry' : 'retries'} each`;
}

function modelOf(
  crew: CrewDefinition,
  agent: AgentDefinition,
  defaultModel: string | undefined,
): { id: string | undefined; spec: ModelSpec; source: string } {
  if (agent.llm !== undefined) return { id: agent.llm.model, spec: agent.llm, source: "the agent's llm" };
  if (crew.llm !== undefined) return { id: crew.llm.model, spec: crew.llm, source: "the crew's llm" };
  if (defaultModel !== undefined) {
    return { id: defaultModel, spec: { model: defaultModel }, source: 'the MODEL variable' };
  }
  return { id: undefined, spec: { model: '' }, source: 'no llm and no MODEL variable' };
}

/** Resolves a model as serving would, listing why it cannot be under `owner`. */
function resolveInto(models: ModelResolver, spec: ModelSpec, owner: string, blocking: string[]): void {
  try {
    models(spec);
  } catch (error) {
    blocking.push(`${owner}: ${messageOf(error)}`);
  }
}

/** An agent's `mcps`: each server reference, and whether crewd knows it and can reach it now. */
function describeMcps(
  agentName: string,
  references: readonly string[],
  registry: ToolRegistry,
  blocking: string[],
): string {
  return references
    .map((reference) => {
      if (registry.server(reference) !== undefined) return reference;
      blocking.push(
        `agent ${agentName} names MCP server '${reference}' in mcps, which is neither a server in crew.yaml's mcp_servers nor an http(s) URL`,
      );
      return `${reference} (not available)`;
    })
    .join(', ');
}

function describeTools(
  crew: CrewDefinition,
  names: readonly string[],
  registry: ToolRegistry,
  blocking: string[],
  owner: string,
  presets: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined,
): string {
  if (names.length === 0) return 'none';
  return names
    .map((name) => {
      const origin = crew.toolOrigins?.[name];
      if (registry.get(name) !== undefined) return withPresets(name, presets?.[name]);
      blocking.push(
        origin === undefined
          ? `${owner} uses tool ${name}, which is not available`
          : `${owner} uses custom Python tool ${name} at ${origin}: add tools/${name}.ts`,
      );
      return origin === undefined
        ? `${name} (not available)`
        : `${name} (custom Python tool at ${origin}, not available)`;
    })
    .join(', ');
}

/** A tool as crew.py instantiates it: `FileReadTool(file_path="notes.txt")`. */
function withPresets(name: string, presets: Readonly<Record<string, unknown>> | undefined): string {
  if (presets === undefined || Object.keys(presets).length === 0) return name;
  const { [positionalArgumentsKey]: positional, ...named } = presets;
  const settings = [
    ...(Array.isArray(positional) ? positional.map((value) => JSON.stringify(value)) : []),
    ...Object.entries(named).map(([key, value]) => `${key}=${JSON.stringify(value)}`),
  ];
  return `${name}(${settings.join(', ')})`;
}

function describeContext(task: TaskDefinition, index: number): string {
  if (task.context === undefined) return index === 0 ? 'none' : 'every earlier task';
  return task.context.length === 0 ? 'none' : task.context.join(', ');
}

function describeOutput(task: TaskDefinition): string {
  if (task.outputJson === undefined) return 'text';
  const title = task.outputJson.title;
  return typeof title === 'string'
    ? `JSON checked against ${title}'s schema`
    : 'JSON checked against a schema';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : 'cannot be checked';
}
