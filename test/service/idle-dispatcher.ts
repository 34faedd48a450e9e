import type { Dispatcher } from '../../src/service/dispatcher.ts';

/** A dispatcher with no room that runs nothing: executions stay as each test writes them. */
export const idleDispatcher: Dispatcher = {
  submit: () => {},
  reserve: () => ({ size: 0, submit: () => {}, release: () => {} }),
  room: () => 0,
  inHand: () => [],
  drain: () => Promise.resolve(),
};
