import { defaultGuardrailMaxRetries, positionalArgumentsKey } from '../domain/crew.ts';
import type { AgentDefinition, CrewDefinition, TaskDefinition } from '../domain/crew.ts';
import { findGuardrail } from '../engine/guardrails.ts';
import type { ModelResolver } from '../llm/chat-model.ts';
import type { ToolRegistry } from '../engine/tool.ts';
import { managerAgent } from '../engine/manager-agent.ts';
import { processFor } from '../engine/crew-process.ts';

/** What `crewd check` found while loading a crew. */
export interface LoadFindings {
  readonly warnings: readonly string[];
  /** Parts of the project crewd does not honour (crew.py it cannot read, crewAI keys it does not act on). */
  readonly dropped: readonly string[];
}

export interface MigrationReport {
  readonly text: string;
  /** Parts that would be dropped, and what stops the crew from starting at all. */
  readonly problems: number;
}

/**
 * The migration report of `crewd check`: what crewd will run (agents with model and tools and where each comes
 * from, tasks with agent, context and output, required inputs), then everything it will not honour.
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
      lines.push(`Manager: ${managerAgent(crew).role} (${source}), delegating each task to its agent`);
    }
  } catch (error) {
    blocking.push(messageOf(error));
  }

  lines.push('', 'Agents:');
  for (const agent of crew.agents.values()) {
    const model = modelOf(crew, agent, resources.defaultModel);
    if (model.id !== undefined) {
      try {
        resources.models(model.id);
      } catch (error) {
        blocking.push(`agent ${agent.name}: ${messageOf(error)}`);
      }
    } else {
      blocking.push(`agent ${agent.name} has no model: set its llm, the crew's llm or the MODEL variable`);
    }
    lines.push(`  ${agent.name} (${agent.role})`);
    lines.push(`    model: ${model.id ?? 'none'} (${model.source})`);
    lines.push(
      `    tools: ${describeTools(crew, agent.tools, resources.tools, blocking, `agent ${agent.name}`, agent.toolArguments)}`,
    );
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

  const section = (title: string, items: readonly string[]): void => {
    if (items.length === 0) return;
    lines.push('', title);
    for (const item of items) lines.push(`  - ${item}`);
  };
  section('Not honoured (left out when run with --allow-partial):', findings.dropped);
  section('Stops the crew from starting:', blocking);
  section('Warnings:', findings.warnings);

  const problems = findings.dropped.length + blocking.length;
  lines.push(
    '',
    problems === 0
      ? 'Nothing is left out: crewd runs this crew as written.'
      : `${problems} ${problems === 1 ? 'problem' : 'problems'}: crewd does not run this crew as written.`,
  );
  return { text: `${lines.join('\n')}\n`, problems };
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
): { id: string | undefined; source: string } {
  if (agent.llm !== undefined) return { id: agent.llm.model, source: "the agent's llm" };
  if (crew.llm !== undefined) return { id: crew.llm.model, source: "the crew's llm" };
  if (defaultModel !== undefined) return { id: defaultModel, source: 'the MODEL variable' };
  return { id: undefined, source: 'no llm and no MODEL variable' };
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
