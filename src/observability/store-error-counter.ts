import type { Store } from '../store/store.ts';
import { isStoreUnavailable } from '../store/store-unavailable.ts';
import type { StoreErrorKind } from './metrics.ts';

/**
 * The store, with every failed operation reported by kind before its caller sees it: one place counts the errors of
 * the API, the runner, recovery and the webhook worker alike.
 */
export function countingStoreErrors(store: Store, onError: (kind: StoreErrorKind) => void): Store {
  const report = (error: unknown): never => {
    onError(isStoreUnavailable(error) ? error.reason : 'rejected');
    throw error;
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'close') return value;
      return (...args: unknown[]): unknown => {
        const result: unknown = Reflect.apply(value, target, args);
        return result instanceof Promise ? result.catch(report) : result;
      };
    },
  });
}
