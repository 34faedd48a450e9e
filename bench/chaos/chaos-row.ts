/** One line of the chaos table: what was tried, what came through, what was lost, and the bound checked. */
export interface ChaosRow {
  readonly scenario: string;
  /** Requests, connections or executions the scenario tried. */
  readonly tried: number;
  /** Of those, how many came through as they should. */
  readonly survived: number;
  /** Accepted work that never finished, or a saved task that ran again. */
  readonly lost: number;
  /** 5xx answers other than 503. */
  readonly serverErrors: number;
  /** The bound the scenario checks, with what it measured. */
  readonly bound: string;
  readonly held: boolean;
}

export function formatChaosTable(rows: readonly ChaosRow[]): string {
  const header = ['scenario', 'tried', 'survived', 'lost', '5xx (not 503)', 'bound', 'held'];
  const lines = rows.map((row) => [
    row.scenario,
    String(row.tried),
    String(row.survived),
    String(row.lost),
    String(row.serverErrors),
    row.bound,
    row.held ? 'yes' : 'NO',
  ]);
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
