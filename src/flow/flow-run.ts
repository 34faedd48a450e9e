import type { JsonValue } from './cel-values.ts';
import type { FlowDefinition, FlowMethodDefinition } from './flow-definition.ts';
import { FlowMethodError, FlowStopped } from './flow-errors.ts';
import type { FlowRunDependencies, ReviewRejection } from './flow-action-context.ts';
import { directOrBranches, isMultiEventOr, mentions, satisfied } from './flow-conditions.ts';
import type { FlowCondition } from './flow-schema.ts';
import type { FlowBookkeeping, FlowJournal, FlowJournalEntry } from './flow-journal.ts';
import type { FlowState } from './flow-state.ts';
import { pythonStr } from './python-text.ts';
import { runAction } from './run-action.ts';

/** What a flow run reports as it goes (crewAI's method events). */
export type FlowEvent =
  | { readonly type: 'method-start'; readonly method: string }
  | {
      readonly type: 'method-end';
      readonly method: string;
      readonly result: JsonValue;
      readonly replayed: boolean;
    }
  | { readonly type: 'method-fail'; readonly method: string; readonly error: unknown };

/** Thrown through the run when a `human_feedback` method waits for a person. */
export class FlowPause extends Error {
  constructor(
    readonly method: FlowMethodDefinition,
    readonly output: JsonValue,
  ) {
    super(`${method.name} waits for human feedback`);
    this.name = 'FlowPause';
  }
}

/** A racing listener that finished after another won: its work is dropped, as crewAI cancels it. */
class RaceLost extends Error {}

interface Race {
  winner: string | undefined;
  readonly controllers: Map<string, AbortController>;
}

/** What a journal holds for one execution of one method. */
interface Recorded {
  completed?: Extract<FlowJournalEntry, { kind: 'method-completed' }>;
  action?: JsonValue;
  actionState?: FlowState | undefined;
  feedback?: Extract<FlowJournalEntry, { kind: 'feedback-given' }>;
}

/**
 * One kickoff of a flow: crewAI's listener dispatch (`_execute_listeners`) with its bookkeeping. Every completed
 * method goes through the journal; what the journal already holds is replayed, not run again.
 */
export class FlowRun {
  readonly #completed = new Set<string>();
  readonly #firedOr = new Set<string>();
  readonly #pending = new Map<string, Set<string>>();
  readonly #calls = new Map<string, number>();
  readonly #executions = new Map<string, number>();
  readonly #outputs: { method: string; output: JsonValue; final: JsonValue }[] = [];
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #controller = new AbortController();
  readonly #replay = new Map<string, Recorded>();
  /** The flow's state: Python code and scripts may change it as they run. */
  #state: FlowState;

  constructor(
    private readonly definition: FlowDefinition,
    state: FlowState,
    private readonly journal: FlowJournal,
    private readonly dependencies: FlowRunDependencies,
    entries: readonly FlowJournalEntry[],
    private readonly onEvent: (event: FlowEvent) => void = () => {},
  ) {
    this.#state = state;
    for (const entry of entries) {
      if (entry.kind === 'flow-started') continue;
      const key = `${entry.method}#${entry.call}`;
      const recorded = this.#replay.get(key) ?? {};
      if (entry.kind === 'method-completed') recorded.completed = entry;
      if (entry.kind === 'action-completed') {
        recorded.action = entry.output;
        recorded.actionState = entry.state;
      }
      if (entry.kind === 'feedback-given') recorded.feedback = entry;
      this.#replay.set(key, recorded);
    }
  }

  /** Runs the start methods and everything they trigger; rejects with the first failure or a FlowPause. */
  async start(): Promise<void> {
    const starts = [...this.definition.methods.values()].filter((method) => method.start !== undefined);
    const unconditional = starts.filter((method) => method.start === true);
    const first = unconditional.length > 0 ? unconditional : starts;
    try {
      await Promise.all(first.map((method) => this.#track(this.#executeStart(method))));
    } catch (error) {
      this.#controller.abort(error);
      // Branches still running are stopped (their model calls aborted) before the run reports.
      while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
      throw error;
    }
  }

  /** The state as the run left it. */
  get state(): FlowState {
    return this.#state;
  }

  /** The flow's result: the output of the method that completed last (crewAI's `method_outputs[-1]`). */
  get result(): JsonValue {
    return this.#outputs.at(-1)?.final ?? null;
  }

  /** `outputs` as CEL sees it: each method's latest output. */
  outputsByName(): Record<string, JsonValue> {
    return Object.fromEntries(this.#outputs.map(({ method, output }) => [method, output]));
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inflight.add(promise);
    const forget = (): void => void this.#inflight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  async #executeStart(method: FlowMethodDefinition, input: JsonValue | undefined = undefined): Promise<void> {
    this.#rerun(method.name);
    const result = await this.#execute(method, undefined, input);
    if (method.router && result !== null) {
      await this.#dispatch(method.name, result);
      await this.#dispatch(pythonStr(result), result);
    } else {
      await this.#dispatch(method.name, result);
    }
  }

  /** A method running again in a cycle clears its completion and every fired-OR mark (crewAI RT:3274). */
  #rerun(name: string): void {
    if (!this.#completed.has(name)) return;
    this.#completed.delete(name);
    this.#firedOr.clear();
  }

  async #runListener(
    method: FlowMethodDefinition,
    race: Race | undefined,
    input: JsonValue,
  ): Promise<JsonValue> {
    const count = (this.#calls.get(method.name) ?? 0) + 1;
    this.#calls.set(method.name, count);
    if (count > this.definition.maxMethodCalls) {
      throw new FlowMethodError(
        method.name,
        `Method '${method.name}' has been called ${this.definition.maxMethodCalls} times in this flow execution, which indicates an infinite loop. ` +
          "This commonly happens when a @listen label matches the method's own name.",
      );
    }
    this.#rerun(method.name);
    const result = await this.#execute(method, race, input);
    await this.#dispatch(method.name, result);
    return result;
  }

  /** Whether `method`'s condition (keyed by `key`) is met once `event` is added to what it has seen. */
  #conditionMet(condition: FlowCondition, key: string, event: string): boolean {
    if (typeof condition === 'string') return condition === event;
    const seen = this.#pending.get(key) ?? new Set<string>();
    seen.add(event);
    if (satisfied(condition, seen)) {
      this.#pending.delete(key);
      return true;
    }
    this.#pending.set(key, seen);
    return false;
  }

  /**
   * Runs what `trigger` sets off; `value` is what the triggering method returned. Only Python actions read it (crewAI
   * passes it to `code` refs and as a script's `input`); a router's outcome passes the router's result on.
   */
  async #dispatch(trigger: string, value: JsonValue): Promise<void> {
    const methods = [...this.definition.methods.values()];
    const routerEvents: string[] = [];
    const routerValues: JsonValue[] = [];
    // Phase 1: routers, one after another, each outcome the next trigger.
    let current = trigger;
    let currentValue = value;
    for (;;) {
      const routers = methods.filter(
        (method) =>
          method.router &&
          method.start === undefined &&
          method.listen !== undefined &&
          this.#conditionMet(method.listen, method.name, current),
      );
      if (routers.length === 0) break;
      for (const router of routers) {
        const result = await this.#runListener(router, undefined, currentValue);
        if (result === null) {
          current = '';
          continue;
        }
        const event = pythonStr(result);
        routerEvents.push(event);
        routerValues.push(result);
        current = event;
        currentValue = result;
      }
    }
    // Phase 2: plain listeners of the trigger, then of each router outcome, concurrently per event.
    const rearmable = new Set(this.#firedOr);
    for (const [index, event] of [trigger, ...routerEvents].entries()) {
      if (index > 0) {
        for (const name of rearmable) {
          const listen = this.definition.methods.get(name)?.listen;
          if (listen !== undefined && mentions(listen, event)) this.#firedOr.delete(name);
        }
      }
      const listeners = methods.filter(
        (method) =>
          !method.router &&
          method.start === undefined &&
          method.listen !== undefined &&
          !(isMultiEventOr(method.listen) && this.#firedOr.has(method.name)) &&
          this.#conditionMet(method.listen, method.name, event),
      );
      for (const listener of listeners) if (isMultiEventOr(listener.listen)) this.#firedOr.add(listener.name);
      const eventValue = index === 0 ? value : (routerValues[index - 1] ?? null);
      await this.#runConcurrently(listeners, eventValue);
      if (index > 0) {
        for (const start of methods) {
          if (start.start === undefined || start.start === true) continue;
          if (this.#conditionMet(start.start, `start:${start.name}`, event))
            await this.#executeStart(start, eventValue);
        }
      }
    }
  }

  /** Siblings run together; those racing to trigger one OR listener run until the first finishes. */
  async #runConcurrently(listeners: FlowMethodDefinition[], input: JsonValue): Promise<void> {
    const races = this.#races(listeners);
    const running = listeners.filter((listener) => races.skip.has(listener.name) === false);
    await Promise.all(
      running.map((listener) =>
        this.#track(
          this.#runListener(listener, races.of.get(listener.name), input).catch((error: unknown) => {
            if (error instanceof RaceLost) return null;
            this.#controller.abort(error);
            throw error;
          }),
        ),
      ),
    );
  }

  #races(listeners: FlowMethodDefinition[]): { of: Map<string, Race>; skip: Set<string> } {
    const of = new Map<string, Race>();
    const skip = new Set<string>();
    const methods = [...this.definition.methods.values()];
    for (const target of methods) {
      if (target.router) continue;
      const branches = directOrBranches(target.listen);
      const racers = listeners.filter((listener) => branches.includes(listener.name) && !listener.router);
      if (racers.length < 2) continue;
      const fedOnlyHere = racers.every((racer) =>
        methods.every(
          (other) =>
            other === target || !conditionsOf(other).some((condition) => mentions(condition, racer.name)),
        ),
      );
      if (!fedOnlyHere) continue;
      // On a replay the recorded winner wins again; the others are not started at all.
      const recorded = racers.filter((racer) => this.#nextCall(racer).recorded?.completed);
      if (recorded.length > 0)
        for (const racer of racers) if (!recorded.includes(racer)) skip.add(racer.name);
      const race: Race = { winner: undefined, controllers: new Map() };
      for (const racer of racers) {
        race.controllers.set(racer.name, new AbortController());
        of.set(racer.name, race);
      }
    }
    return { of, skip };
  }

  /** Runs (or replays) one method, with its human feedback step; records it and returns what listeners get. */
  async #execute(
    method: FlowMethodDefinition,
    race: Race | undefined,
    input: JsonValue | undefined,
  ): Promise<JsonValue> {
    const { call, recorded, rejections } = this.#nextCall(method);
    this.#executions.set(method.name, call);
    if (recorded?.completed !== undefined) {
      if (race !== undefined) this.#claim(race, method.name);
      const entry = recorded.completed;
      this.#state = entry.bookkeeping.state;
      this.#complete(method.name, entry.output, entry.final);
      this.onEvent({ type: 'method-end', method: method.name, result: entry.result, replayed: true });
      return entry.result;
    }
    this.#controller.signal.throwIfAborted();
    this.onEvent({ type: 'method-start', method: method.name });
    let output: JsonValue;
    if (recorded?.action !== undefined) {
      output = recorded.action;
      if (recorded.actionState !== undefined) this.#state = recorded.actionState;
    } else {
      const signal =
        race === undefined
          ? this.#controller.signal
          : AbortSignal.any([
              this.#controller.signal,
              race.controllers.get(method.name)?.signal ?? this.#controller.signal,
            ]);
      let runs = 0;
      try {
        output = await runAction(method.action, {
          method: method.name,
          nextRun: () => ({ method: method.name, call, run: (runs += 1) }),
          data: { state: this.#state, outputs: this.outputsByName() },
          sourceDir: this.definition.sourceDir,
          signal,
          dependencies: this.dependencies,
          ...(input === undefined ? {} : { input }),
          ...(rejections.length === 0 ? {} : { rejections }),
          setState: (state) => {
            this.#state = state;
          },
        });
      } catch (error) {
        // Stopped from outside before a model call: the method did not fail, and runs on from its crew's steps.
        if (error instanceof FlowStopped) throw error;
        if (race?.winner !== undefined && race.winner !== method.name) throw new RaceLost();
        if (!this.#controller.signal.aborted)
          this.onEvent({ type: 'method-fail', method: method.name, error });
        throw error instanceof FlowMethodError || this.#controller.signal.aborted
          ? error
          : new FlowMethodError(method.name, messageOf(error), error);
      }
    }
    if (race !== undefined) this.#claim(race, method.name);
    let result = output;
    let shown = output;
    let final = output;
    const feedback = method.humanFeedback;
    if (feedback !== undefined) {
      const given = recorded?.feedback;
      if (given === undefined) {
        if (recorded?.action === undefined)
          await this.journal.append({
            kind: 'action-completed',
            method: method.name,
            call,
            output,
            state: this.#state,
          });
        throw new FlowPause(method, output);
      }
      const review: JsonValue = {
        output,
        feedback: given.feedback,
        outcome: given.outcome,
        timestamp: given.at,
        method_name: method.name,
        metadata: feedback.metadata as JsonValue,
      };
      shown = review;
      const routes = feedback.emit !== undefined;
      result = routes ? given.outcome : review;
      final = routes ? output : review;
    }
    this.#complete(method.name, shown, final);
    await this.journal.append({
      kind: 'method-completed',
      method: method.name,
      call,
      output: shown,
      result,
      final,
      bookkeeping: this.#bookkeeping(),
    });
    this.onEvent({ type: 'method-end', method: method.name, result, replayed: false });
    return result;
  }

  /**
   * The next execution of `method` and what the journal holds of it. A call whose reviewer rejected the output of a
   * method without `emit` is followed by another: those calls are passed, their rejections collected.
   */
  #nextCall(method: FlowMethodDefinition): {
    call: number;
    recorded: Recorded | undefined;
    rejections: ReviewRejection[];
  } {
    let call = (this.#executions.get(method.name) ?? 0) + 1;
    let recorded = this.#replay.get(`${method.name}#${call}`);
    const rejections: ReviewRejection[] = [];
    while (recorded?.completed === undefined && isRetried(method, recorded)) {
      rejections.push({ output: recorded.action, feedback: recorded.feedback.feedback });
      call += 1;
      recorded = this.#replay.get(`${method.name}#${call}`);
    }
    return { call, recorded, rejections };
  }

  #claim(race: Race, name: string): void {
    if (race.winner !== undefined && race.winner !== name) throw new RaceLost();
    race.winner = name;
    for (const [racer, controller] of race.controllers) if (racer !== name) controller.abort(new RaceLost());
  }

  #complete(method: string, output: JsonValue, final: JsonValue): void {
    this.#outputs.push({ method, output, final });
    this.#completed.add(method);
  }

  #bookkeeping(): FlowBookkeeping {
    return {
      state: this.#state,
      outputs: this.#outputs.map(({ method, output }) => ({ method, output })),
      firedOr: [...this.#firedOr],
      pendingEvents: Object.fromEntries([...this.#pending].map(([key, seen]) => [key, [...seen]])),
      callCounts: Object.fromEntries(this.#calls),
    };
  }
}

/**
 * Whether a recorded call was rejected by its reviewer and so runs again: only a method without `emit` retries
 * (with `emit`, the feedback picks the route whatever the reviewer approved).
 */
function isRetried(
  method: FlowMethodDefinition,
  recorded: Recorded | undefined,
): recorded is Recorded & { action: JsonValue; feedback: NonNullable<Recorded['feedback']> } {
  return (
    method.humanFeedback !== undefined &&
    method.humanFeedback.emit === undefined &&
    recorded?.action !== undefined &&
    recorded.feedback?.approved === false
  );
}

function conditionsOf(method: FlowMethodDefinition): FlowCondition[] {
  return [method.listen, method.start === true ? undefined : method.start].filter(
    (condition): condition is FlowCondition => condition !== undefined,
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
