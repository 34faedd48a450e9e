/*
 * The states an execution goes through, from the domain itself: a client (the web console among them) that
 * lists or tests states uses these, so a state added or renamed on the server changes them too.
 */
export { executionStates, isFinished } from '../domain/execution.ts';
