/** The source of "now" (epoch milliseconds); tests pass a fixed or stepping clock. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
