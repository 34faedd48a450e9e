/** A wall clock for a server under test: real time plus an offset the test moves forward instead of waiting. */
export interface MovableClock {
  readonly now: () => Date;
  advance(ms: number): void;
}

export function movableClock(): MovableClock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms) {
      offsetMs += ms;
    },
  };
}
