import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Parser, Tree } from 'web-tree-sitter';
import { userCrew } from '../../../test/support/user-crew.ts';
import { loadCrew } from '../load-crew.ts';

const marketBrief = fileURLToPath(
  new URL('../../../test/fixtures/crewai-projects/market_brief', import.meta.url),
);

afterEach(() => {
  vi.restoreAllMocks();
});

/** Records the syntax trees tree-sitter hands out and those deleted, through its own classes. */
function watchTrees(): { created: () => Tree[]; deleted: () => Tree[] } {
  const parse = vi.spyOn(Parser.prototype, 'parse');
  const remove = vi.spyOn(Tree.prototype, 'delete');
  return {
    created: () =>
      parse.mock.results.flatMap((result) =>
        result.type === 'return' && result.value !== null ? [result.value] : [],
      ),
    deleted: () => remove.mock.contexts as Tree[],
  };
}

describe('PythonTrees', () => {
  it('releases every tree a crew.py read parses, however often the crew is loaded', async () => {
    const crewDir = userCrew(marketBrief);
    const trees = watchTrees();

    // What `serve --watch` does on every save, and `serve`, `run` and `check` once each.
    const reads = 20;
    for (let read = 0; read < reads; read += 1) {
      const crew = await loadCrew(crewDir, { warn: () => undefined });
      expect(crew.tasks.map((task) => task.name)).toEqual(['research_task', 'brief_task']);
    }

    // crew.py and the models module it imports, on every read.
    const deleted = new Set(trees.deleted());
    expect(trees.created().length).toBeGreaterThanOrEqual(2 * reads);
    expect(trees.created().filter((tree) => !deleted.has(tree))).toEqual([]);
  });
});
