/** A JSON value as a tree of collapsible nodes (native details/summary: keyboard accessible without script). */
export function JsonTree({ value, label }: { value: unknown; label?: string }) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? (value as unknown[]).map((item, index) => [String(index), item] as const)
      : Object.entries(value as Record<string, unknown>);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      <details class="json" open>
        <summary>
          {label === undefined ? null : <span class="json-key">{label}: </span>}
          <span class="json-meta">{summary}</span>
        </summary>
        <ul>
          {entries.map(([key, item]) => (
            <li key={key}>
              <JsonTree value={item} label={key} />
            </li>
          ))}
        </ul>
      </details>
    );
  }
  return (
    <span class="json-leaf">
      {label === undefined ? null : <span class="json-key">{label}: </span>}
      <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
    </span>
  );
}
