import type { PythonNode } from './python-parser.ts';
import { excerpt } from './python-value.ts';
import type { PythonSymbol, PythonValue } from './python-value.ts';

/** Reports a part of a model setting crewd cannot read, with the node it was written at. */
export type LlmProblem = (node: PythonNode, where: string, message: string) => void;

/**
 * Model classes of other libraries crewAI projects pass as `llm`, by class name: the crewAI provider prefix the model
 * is reached by, and the keyword arguments that hold the model name, in the order read.
 */
interface Wrapper {
  readonly prefix: string;
  readonly modelKeys: readonly string[];
}

const modelNameKeys = ['model', 'model_name'];

const wrappers: Readonly<Record<string, Wrapper>> = {
  ChatOpenAI: { prefix: 'openai', modelKeys: modelNameKeys },
  OpenAI: { prefix: 'openai', modelKeys: modelNameKeys },
  AzureChatOpenAI: { prefix: 'azure', modelKeys: ['azure_deployment', 'deployment_name', ...modelNameKeys] },
  ChatAnthropic: { prefix: 'anthropic', modelKeys: modelNameKeys },
  Ollama: { prefix: 'ollama', modelKeys: modelNameKeys },
  ChatOllama: { prefix: 'ollama', modelKeys: modelNameKeys },
  OllamaLLM: { prefix: 'ollama', modelKeys: modelNameKeys },
  ChatGroq: { prefix: 'groq', modelKeys: modelNameKeys },
  ChatMistralAI: { prefix: 'mistral', modelKeys: modelNameKeys },
  ChatGoogleGenerativeAI: { prefix: 'gemini', modelKeys: modelNameKeys },
  ChatNVIDIA: { prefix: 'nvidia_nim', modelKeys: modelNameKeys },
  ChatDeepSeek: { prefix: 'deepseek', modelKeys: modelNameKeys },
  ChatBedrock: { prefix: 'bedrock', modelKeys: ['model_id', ...modelNameKeys] },
  ChatBedrockConverse: { prefix: 'bedrock', modelKeys: ['model_id', ...modelNameKeys] },
};

/** The wrappers' names for the settings crewd's model spec reads (`base_url`, `api_key`, ...). */
const settingNames: Readonly<Record<string, string>> = {
  openai_api_base: 'base_url',
  openai_api_key: 'api_key',
  anthropic_api_key: 'api_key',
  anthropic_api_url: 'base_url',
  groq_api_key: 'api_key',
  mistral_api_key: 'api_key',
  google_api_key: 'api_key',
  nvidia_api_key: 'api_key',
  max_tokens_to_sample: 'max_tokens',
  num_predict: 'max_tokens',
  max_output_tokens: 'max_tokens',
};

/**
 * A model as crew.py writes it, in the form crewd's `llm` setting takes: a string stays a string; crewAI's
 * `LLM(model=..., temperature=..., base_url=...)` becomes the mapping form with its literal settings; a known
 * wrapper class (`ChatOpenAI`, langchain's `Ollama`, ...) is read as the provider it wraps, so `Ollama(model="llama3")`
 * is `ollama/llama3` and never an OpenAI model of that name. Anything else is reported and undefined.
 */
export function readLlm(value: PythonValue, where: string, problem: LlmProblem): unknown {
  if (value.kind === 'data' && (typeof value.value === 'string' || value.value === null))
    return value.value ?? undefined;
  if (value.kind !== 'call' || value.callee.kind === 'function') {
    problem(value.node, where, `\`${excerpt(value.node)}\` cannot be read statically; it is left out`);
    return undefined;
  }
  const className = classNameOf(value.callee);
  const wrapper = wrappers[className];
  if (className !== 'LLM' && wrapper === undefined) {
    problem(
      value.node,
      where,
      `${className} is a model class crewd does not know; write LLM(model="provider/model") instead`,
    );
    return undefined;
  }
  const modelKeys = wrapper?.modelKeys ?? modelNameKeys;
  const settings: Record<string, unknown> = {};
  let model: unknown;
  for (const [key, argument] of value.kwargs) {
    if (argument.kind !== 'data') {
      problem(
        argument.node,
        `${where}.${key}`,
        `\`${excerpt(argument.node)}\` cannot be read statically; it is left out`,
      );
      continue;
    }
    if (modelKeys.includes(key)) model ??= argument.value;
    else settings[settingNames[key] ?? key] = argument.value;
  }
  const [first] = value.args;
  if (model == null && first?.kind === 'data') model = first.value;
  if (typeof model !== 'string' || model.trim() === '') {
    problem(value.node, where, `names no model crewd can read: \`${excerpt(value.node)}\``);
    return undefined;
  }
  return { model: withPrefix(model.trim(), wrapper?.prefix), ...settings };
}

/** The wrapped provider's prefix before the model name, unless the name already carries it. */
function withPrefix(model: string, prefix: string | undefined): string {
  if (prefix === undefined || model.toLowerCase().startsWith(`${prefix}/`)) return model;
  return `${prefix}/${model}`;
}

function classNameOf(symbol: PythonSymbol): string {
  return symbol.name.split('.').pop() ?? symbol.name;
}
