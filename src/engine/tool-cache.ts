import { canonicalJson } from '../domain/canonical-json.ts';

/** crewAI's tool cache: results of calls made in one execution, by tool and arguments. */
export interface ToolCache {
  get(tool: string, input: unknown): string | undefined;
  set(tool: string, input: unknown, result: string): void;
}

/** A cache in memory; the same arguments in another key order are the same call. */
export function createToolCache(): ToolCache {
  const results = new Map<string, string>();
  const key = (tool: string, input: unknown): string => `${tool}\u0000${canonicalJson(input)}`;
  return {
    get: (tool, input) => results.get(key(tool, input)),
    set: (tool, input, result) => void results.set(key(tool, input), result),
  };
}

/** Keeps one cache per execution for the executions run most recently, so a resumed execution keeps its own. */
export class ToolCaches {
  readonly #caches = new Map<string, ToolCache>();

  constructor(private readonly capacity = 1000) {}

  for(executionId: string): ToolCache {
    let cache = this.#caches.get(executionId);
    if (cache === undefined) {
      cache = createToolCache();
      this.#caches.set(executionId, cache);
      const oldest = this.#caches.keys().next().value;
      if (this.#caches.size > this.capacity && oldest !== undefined) this.#caches.delete(oldest);
    }
    return cache;
  }

  /** Forgets an execution that has ended. */
  drop(executionId: string): void {
    this.#caches.delete(executionId);
  }
}
