import { useEffect, useRef, useState } from 'preact/hooks';

/** The part of the address after `#`, as the console's route. */
export function useHashRoute(): string {
  const [route, setRoute] = useState(() => location.hash.replace(/^#/, '') || '/');
  useEffect(() => {
    const update = () => setRoute(location.hash.replace(/^#/, '') || '/');
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

export interface Loaded<T> {
  readonly value: T | null;
  readonly error: Error | null;
  readonly reload: () => void;
}

/**
 * Loads with `load` when `key` changes and again `everyMs` after each load, so lists stay current
 * without a stream per row (a browser opens only six connections to one server).
 */
export function usePolled<T>(load: () => Promise<T>, key: string, everyMs: number | null): Loaded<T> {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => setValue(null), [key]);
  useEffect(() => {
    let current = true;
    loadRef.current().then(
      (loaded) => {
        if (!current) return;
        setValue(loaded);
        setError(null);
      },
      (failure: unknown) => {
        if (current) setError(failure instanceof Error ? failure : new Error(String(failure)));
      },
    );
    const timer = everyMs === null ? undefined : setTimeout(() => setTick((count) => count + 1), everyMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key, tick, everyMs]);
  return { value, error, reload: () => setTick((count) => count + 1) };
}
