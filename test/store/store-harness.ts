import type { Store } from '../../src/store/store.ts';

/** Opens migrated stores on the suite's database; every store opened in a test is closed after it. */
export interface StoreHarness {
  open(): Promise<Store>;
}
