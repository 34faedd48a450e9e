/**
 * crewAI keys crewd knows but does not act on yet, with what happens instead. A key here is reported as not
 * honoured ("crewd does not do X yet: ..."), which is different from an unknown key (a typo, or a key crewAI
 * does not have either): a crew using one would behave differently on crewd than on crewAI.
 */
export type UnhonouredKeys = Readonly<Record<string, string>>;

export const unhonouredAgentKeys: UnhonouredKeys = {
  memory: 'the agent remembers nothing beyond the task and its context',
  knowledge_sources: 'the agent is given no knowledge sources',
  knowledge_config: 'the agent is given no knowledge sources',
  embedder: 'nothing is embedded',
  reasoning: 'the agent answers without a reasoning step first',
  max_reasoning_attempts: 'the agent answers without a reasoning step first',
  planning: 'the agent answers without a planning step first',
  planning_config: 'the agent answers without a planning step first',
  allow_code_execution: 'the agent cannot run code',
  code_execution_mode: 'the agent cannot run code',
  multimodal: 'the agent reads text only',
  cache: 'tool results are not cached',
  respect_context_window: 'long context is sent as it is, not summarized',
  use_system_prompt: "crewd's prompts are used",
  system_template: "crewd's prompts are used",
  prompt_template: "crewd's prompts are used",
  response_template: "crewd's prompts are used",
  step_callback: 'no Python runs after each step',
  guardrail: "the agent's answers are not checked by a guardrail",
  guardrail_max_retries: "the agent's answers are not checked by a guardrail",
  max_tokens: "the model's own limit applies",
  security_config: 'no security settings apply',
  apps: "the agent is given no apps' tools",
  a2a: 'the agent is not served as an A2A agent of its own: crewd serves the whole crew as one, at {base_url}/a2a',
};

export const unhonouredTaskKeys: UnhonouredKeys = {
  async_execution: 'the task runs after the one before it, not at the same time',
  callback: 'no Python runs when the task ends',
  converter_cls: "answers are parsed by crewd's JSON reader",
  input_files: 'the files are not given to the agent',
  security_config: 'no security settings apply',
};

export const unhonouredCrewKeys: UnhonouredKeys = {
  memory: 'agents remember nothing beyond each task and its context',
  planning: 'the crew runs without a planning step',
  planning_llm: 'the crew runs without a planning step',
  cache: 'tool results are not cached',
  max_rpm: "only agents' max_rpm limits calls",
  embedder: 'nothing is embedded',
  knowledge_sources: 'agents are given no knowledge sources',
  output_log_file: 'execution events are served on /status and the event stream instead',
  before_kickoff_callbacks: 'no Python runs before the crew starts',
  after_kickoff_callbacks: 'no Python runs after the crew ends',
  step_callback: 'no Python runs after each step',
  task_callback: 'no Python runs after each task',
  stream: 'events are served on the event stream instead',
  chat_llm: 'crewd has no chat mode',
  security_config: 'no security settings apply',
};

/** The message for a key that is not honoured. */
export function unhonouredMessage(key: string, instead: string): string {
  return `crewd does not do ${key} yet: ${instead}`;
}
