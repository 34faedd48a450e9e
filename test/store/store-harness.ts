import type { Store } from '../../src/store/store.ts';

/** Opens migrated stores on the suite's database; every store opened in a test is closed after it. */
export interface StoreHarness {
  /** `processId`: the process the store speaks for (its liveness lock and, on PostgreSQL, its notices). */
  open(options?: StoreOpenOptions): Promise<Store>;
}

export interface StoreOpenOptions {
  readonly processId?: string;
}
