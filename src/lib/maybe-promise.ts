/**
 * A value now, or a promise of it when it has to wait for I/O. The hot paths that are usually
 * answered from memory (a remembered API key, a remembered rate card) return the value itself, so
 * that the common case does not wait a turn of the microtask queue for every `await`.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`, at once when the value is there, after it resolves otherwise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
