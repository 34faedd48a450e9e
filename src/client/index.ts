export { createCrewdClient } from './crewd-client.ts';
export type { CrewdClient, CrewdClientOptions, EventsOptions, WaitOptions } from './crewd-client.ts';
export { CrewdClientError } from './crewd-client-error.ts';
export { executionStates, isFinished } from './execution-states.ts';
export { readExecutionEvents } from './read-execution-events.ts';
export { readServerSentEvents } from './read-server-sent-events.ts';
export type { ServerSentItem } from './read-server-sent-events.ts';
export type {
  CrewDescription,
  Delivery,
  DeliveryList,
  ExecutionDetail,
  ExecutionEvent,
  ExecutionList,
  ExecutionState,
  ExecutionStatus,
  Feedback,
  InputsResponse,
  KickoffRequest,
  KickoffResponse,
  ListQuery,
  OutputFile,
  ResumeRequest,
  ResumeResponse,
  ScheduleList,
  ScheduleRequest,
  ScheduleView,
  StepPayload,
  TaskPayload,
  TimelineEntry,
} from './client-types.ts';
