/** Time, passed in so use cases and the sandbox feed can be tested at exact instants. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
