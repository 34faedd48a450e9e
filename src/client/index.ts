export { createCrewdClient } from './crewd-client.ts';
export type { CrewdClient, CrewdClientOptions, EventsOptions, WaitOptions } from './crewd-client.ts';
export { CrewdClientError } from './crewd-client-error.ts';
export type {
  DeliveryList,
  ExecutionDetail,
  ExecutionEvent,
  ExecutionList,
  ExecutionState,
  ExecutionStatus,
  InputsResponse,
  KickoffRequest,
  KickoffResponse,
  ListQuery,
  ResumeRequest,
  ResumeResponse,
} from './client-types.ts';
