/*
 * The API's answers as the console reads them: the typed client's types, which come from the schemas the server
 * validates and describes its answers with, so a field renamed there fails the console's type check.
 */
export type {
  CrewDescription,
  Delivery,
  ExecutionDetail,
  ExecutionList as ExecutionPage,
  ExecutionState,
  ExecutionStatus as StatusView,
  Feedback,
  OutputFile,
  ScheduleView,
  ServedCrewList,
  StepPayload,
  TaskPayload,
  TimelineEntry,
} from '../../src/client/client-types.ts';
export { executionStates, isFinished } from '../../src/client/execution-states.ts';
