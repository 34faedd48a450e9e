import type { FigureRow } from './figure-row.ts';

/** A number with as many digits as its size deserves. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const size = Math.abs(value);
  if (size >= 1000) return Math.round(value).toLocaleString('en-US');
  if (size >= 100) return value.toFixed(0);
  if (size >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function valueCell(row: FigureRow): string {
  if (row.value === null) return 'n/a';
  const main = `${formatNumber(row.value)} ${row.unit}`.trim();
  if (row.range === undefined || row.range.rounds < 2) return main;
  return `${main} (${formatNumber(row.range.min)}..${formatNumber(row.range.max)})`;
}

function baselineCell(row: FigureRow): string {
  if (row.baseline === null) return '-';
  return `${formatNumber(row.baseline)} ${row.unit}`.trim();
}

function metCell(row: FigureRow): string {
  if (row.met === null) return row.value === null ? 'n/a' : '-';
  return row.met ? 'yes' : 'NO';
}

/** The table the runner prints: one line per row, notes listed under it. */
export function formatTable(rows: readonly FigureRow[]): string {
  const header = ['figure', 'metric', 'value (range)', 'baseline', 'ratio', 'target', 'met?'];
  const lines = rows.map((row) => [
    row.figure,
    row.metric,
    valueCell(row),
    baselineCell(row),
    row.ratio === null ? '-' : `${formatNumber(row.ratio)}x`,
    row.target,
    metCell(row),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]!.length)),
  );
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const notes = rows
    .filter((row) => row.note !== undefined || row.baselineLabel !== undefined)
    .map((row) => {
      const parts = [
        row.baselineLabel === undefined ? undefined : `baseline: ${row.baselineLabel}`,
        row.note,
      ].filter((part) => part !== undefined);
      return `  ${row.figure} / ${row.metric}: ${parts.join('; ')}`;
    });
  return [
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...lines.map(render),
    '',
    'Notes:',
    ...notes,
  ].join('\n');
}
