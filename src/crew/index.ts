/** Loading a crew directory and filling its `{placeholders}`: what the rest of crewd uses from this folder. */
export { loadCrew } from './load-crew.ts';
export type { LoadCrewOptions } from './load-crew.ts';
export {
  checkInputs,
  findPlaceholders,
  interpolate,
  renderAgent,
  renderTask,
  requiredInputs,
} from './placeholders.ts';
export type { RenderedTask } from './placeholders.ts';
export { agentSchema } from './agent-schema.ts';
export type { AgentEntry } from './agent-schema.ts';
export { taskSchema } from './task-schema.ts';
export type { TaskEntry } from './task-schema.ts';
export { crewConfigSchema } from './crew-config-schema.ts';
export type { CrewConfig } from './crew-config-schema.ts';
