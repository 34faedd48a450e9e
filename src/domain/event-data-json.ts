/** Each event's data as JSON, kept while the data lives: see `eventDataJson`. */
const encoded = new WeakMap<object, string>();

/**
 * The JSON text of an event's data, encoded once for every place that writes it: the store's event row and the
 * `data:` line of each event stream that carries it get the same text. An event's data is never changed after the
 * event is made, so the text stays true for as long as the data object lives.
 */
export function eventDataJson(data: unknown): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify(data);
  let text = encoded.get(data);
  if (text === undefined) {
    text = JSON.stringify(data);
    encoded.set(data, text);
  }
  return text;
}
