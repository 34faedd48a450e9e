/** "3 s", "5 min", "2 h", "4 d": how long ago `iso` was, from `now`. */
export function age(iso: string, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

export function duration(fromIso: string, toIso: string | null, now: number = Date.now()): string {
  const end = toIso === null ? now : Date.parse(toIso);
  const milliseconds = Math.max(0, end - Date.parse(fromIso));
  return milliseconds < 10_000 ? `${(milliseconds / 1000).toFixed(1)} s` : age(fromIso, end);
}

export function time(iso: string): string {
  return new Date(iso).toLocaleTimeString();
}

export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}
