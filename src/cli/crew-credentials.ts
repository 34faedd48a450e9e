import type { CrewDefinition, McpServerConfig, ModelSpec } from '../domain/crew.ts';
import { agentModel, agentToolCallingModel } from '../engine/agent-resources.ts';
import { managerAgent } from '../engine/manager-agent.ts';
import { describeWays, modelCredentialNeed } from '../llm/provider-credentials.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** A credential the crew needs, and whether it is set; never its value. */
export interface CredentialStatus {
  /** The variables in words: `OPENAI_API_KEY`, `GEMINI_API_KEY (or GOOGLE_API_KEY)`. */
  readonly variables: string;
  /** What needs it: `models gpt-4o, gpt-4o-mini`, `SerperDevTool`, `MCP server 'search' (headers: Authorization)`. */
  readonly usedBy: string;
  /** Where it is set: the process environment, or only the project's `.env`; undefined when it is not set. */
  readonly setIn: 'environment' | '.env' | undefined;
  /**
   * Whether the report already counts it when missing: a model without its key stops its agent, an MCP server
   * without its variable cannot be used.
   */
  readonly reportedElsewhere: boolean;
}

export interface CredentialEnvironments {
  /** The variables crewd runs with: the process environment with the project's `.env` beneath it. */
  readonly env: Env;
  /** The process environment alone, to tell which of the two a variable comes from. */
  readonly processEnv: Env;
  /** The MODEL variable: the model of agents without an llm. */
  readonly defaultModel: string | undefined;
}

/**
 * The credentials a crew needs to run as written: each provider's key for the models its agents, their tool-calling
 * models and its manager use (from the provider table model resolution reads), `SERPER_API_KEY` for SerperDevTool,
 * and every `${VAR}` its MCP servers name in `env` or `headers`.
 */
export function crewCredentials(
  crew: CrewDefinition,
  environments: CredentialEnvironments,
): CredentialStatus[] {
  return [
    ...modelCredentials(crew, environments),
    ...toolCredentials(crew, environments),
    ...mcpCredentials(crew, environments),
  ];
}

function modelCredentials(crew: CrewDefinition, environments: CredentialEnvironments): CredentialStatus[] {
  const { env } = environments;
  const byVariables = new Map<string, { ways: readonly (readonly string[])[]; models: Set<string> }>();
  for (const spec of crewModels(crew, environments.defaultModel)) {
    const need = modelCredentialNeed(spec, env);
    if (need === undefined) continue;
    const variables = describeWays(need.ways);
    const entry = byVariables.get(variables) ?? { ways: need.ways, models: new Set<string>() };
    entry.models.add(spec.model.trim());
    byVariables.set(variables, entry);
  }
  return [...byVariables].map(([variables, { ways, models }]) => ({
    variables,
    usedBy: `${models.size === 1 ? 'model' : 'models'} ${[...models].join(', ')}`,
    setIn: firstSetWay(ways, environments, isNonEmpty),
    reportedElsewhere: true,
  }));
}

/** Every model the crew may call: each agent's, its tool-calling model, and the manager's. */
function crewModels(crew: CrewDefinition, defaultModel: string | undefined): ModelSpec[] {
  const request = { crew, defaultModel };
  const specs: ModelSpec[] = [];
  const add = (read: () => ModelSpec | undefined): void => {
    try {
      const spec = read();
      if (spec !== undefined) specs.push(spec);
    } catch {
      // An agent without a model is reported on its own in the report.
    }
  };
  for (const agent of crew.agents.values()) {
    add(() => agentModel(request, agent));
    add(() => agentToolCallingModel(request, agent));
  }
  if (crew.process === 'hierarchical') add(() => agentModel(request, managerAgent(crew)));
  else add(() => crew.managerLlm);
  return specs;
}

/** Built-in tools that take a key from crewd's environment. */
const toolKeys: Readonly<Record<string, string>> = { SerperDevTool: 'SERPER_API_KEY' };

function toolCredentials(crew: CrewDefinition, environments: CredentialEnvironments): CredentialStatus[] {
  const used = new Set([
    ...[...crew.agents.values()].flatMap((agent) => agent.tools),
    ...crew.tasks.flatMap((task) => task.tools ?? []),
  ]);
  return Object.entries(toolKeys)
    .filter(([tool]) => used.has(tool))
    .map(([tool, variable]) => ({
      variables: variable,
      usedBy: tool,
      setIn: firstSetWay([[variable]], environments, isNonEmpty),
      // The crew starts without it, and every call of the tool fails: nothing else in the report says so.
      reportedElsewhere: false,
    }));
}

const variableReference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function mcpCredentials(crew: CrewDefinition, environments: CredentialEnvironments): CredentialStatus[] {
  const statuses: CredentialStatus[] = [];
  for (const [name, config] of crew.mcpServers ?? new Map<string, McpServerConfig>()) {
    const [field, values] = config.kind === 'stdio' ? ['env', config.env] : ['headers', config.headers];
    const keysByVariable = new Map<string, string[]>();
    for (const [key, value] of Object.entries(values)) {
      for (const match of value.matchAll(variableReference)) {
        const variable = match[1]!;
        keysByVariable.set(variable, [...(keysByVariable.get(variable) ?? []), key]);
      }
    }
    for (const [variable, keys] of keysByVariable) {
      statuses.push({
        variables: variable,
        usedBy: `MCP server '${name}' (${field}: ${[...new Set(keys)].join(', ')})`,
        // As the server reads it: a variable set to the empty string is set.
        setIn: firstSetWay([[variable]], environments, (value) => value !== undefined),
        reportedElsewhere: true,
      });
    }
  }
  return statuses;
}

/** Where the first way whose variables are all set is set: the environment when all of it is there. */
function firstSetWay(
  ways: readonly (readonly string[])[],
  { env, processEnv }: CredentialEnvironments,
  isSet: (value: string | undefined) => boolean,
): CredentialStatus['setIn'] {
  const way = ways.find((variables) => variables.every((variable) => isSet(env[variable])));
  if (way === undefined) return undefined;
  return way.every((variable) => isSet(processEnv[variable])) ? 'environment' : '.env';
}

function isNonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}
