import { randomUUID } from 'node:crypto';
import type { CrewDefinition } from '../domain/crew.ts';
import type { Execution } from '../domain/execution.ts';
import { executionSeconds, toStatusView } from './status-view.ts';

/**
 * `/status` bodies as JSON text, kept beside the execution object they were made from (the service hands out the
 * same object while the execution is unchanged). Of a body, only `execution_time` moves with the clock, and only
 * while a started execution has not finished, so such a body is kept as the text around that number.
 */
export class StatusBodies {
  readonly #bodies = new WeakMap<Execution, string | readonly [string, string]>();
  // Stands for the running time while a body is serialized; random, so no text a client sent can contain it.
  readonly #marker = `execution-time-${randomUUID()}`;

  /** @param crewOf the crew an execution runs on (the version it started on). */
  constructor(private readonly crewOf: (execution: Execution) => CrewDefinition) {}

  body(execution: Execution, now: Date): string {
    let kept = this.#bodies.get(execution);
    if (kept === undefined) {
      kept = this.#serialize(execution, now);
      this.#bodies.set(execution, kept);
    }
    if (typeof kept === 'string') return kept;
    return `${kept[0]}${executionSeconds(execution, now)}${kept[1]}`;
  }

  #serialize(execution: Execution, now: Date): string | readonly [string, string] {
    const view = toStatusView(execution, this.crewOf(execution), now);
    const moving = execution.startedAt !== null && execution.finishedAt === null;
    if (!moving) return JSON.stringify(view);
    const text = JSON.stringify({ ...view, execution_time: this.#marker });
    const [before = '', after = ''] = text.split(`"${this.#marker}"`);
    return [before, after];
  }
}
