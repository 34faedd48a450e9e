/**
 * Every field of `T`, the optional ones too (possibly undefined). A literal typed with it names each field, so a
 * field added to `T` later cannot be left out of it.
 */
export type EveryField<T> = { [K in keyof Required<T>]: T[K] };
