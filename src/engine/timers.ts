/** Starts timers; the engine's only source of elapsed time, so tests can move time by hand. */
export interface Timers {
  /** Calls `onElapsed` after `ms` milliseconds unless the returned function is called first. */
  start(ms: number, onElapsed: () => void): () => void;
}

export const systemTimers: Timers = {
  start(ms, onElapsed) {
    const timer = setTimeout(onElapsed, ms);
    return () => clearTimeout(timer);
  },
};
