import { REFUSAL_WINDOW_MS, RefusedAuthentications } from './refused-authentications';

describe('RefusedAuthentications', () => {
  let nowMs: number;
  const clock = () => nowMs;

  beforeEach(() => {
    nowMs = 1_000_000;
  });

  it('limits an address once it reaches the limit, and only that address', () => {
    const refusals = new RefusedAuthentications(3, clock);
    expect(refusals.record('10.0.0.1')).toBe(false);
    expect(refusals.record('10.0.0.1')).toBe(false);
    expect(refusals.verdict('10.0.0.1').limited).toBe(false);
    expect(refusals.record('10.0.0.1')).toBe(true);
    expect(refusals.verdict('10.0.0.1')).toEqual({ limited: true, retryAfterSeconds: 60 });
    expect(refusals.verdict('10.0.0.2').limited).toBe(false);
  });

  it('tells how long is left of the window, rounded up to whole seconds', () => {
    const refusals = new RefusedAuthentications(1, clock);
    refusals.record('a');
    nowMs += REFUSAL_WINDOW_MS - 1_500;
    expect(refusals.verdict('a')).toEqual({ limited: true, retryAfterSeconds: 2 });
    nowMs += 1_400;
    expect(refusals.verdict('a')).toEqual({ limited: true, retryAfterSeconds: 1 });
  });

  it('forgets an address when its window ends', () => {
    const refusals = new RefusedAuthentications(1, clock);
    refusals.record('a');
    nowMs += REFUSAL_WINDOW_MS;
    expect(refusals.verdict('a').limited).toBe(false);
    refusals.record('b');
    expect(refusals.size).toBe(1);
  });

  it('starts a new window after the old one ends instead of counting on', () => {
    const refusals = new RefusedAuthentications(2, clock);
    refusals.record('a');
    nowMs += REFUSAL_WINDOW_MS + 1;
    refusals.record('a');
    expect(refusals.verdict('a').limited).toBe(false);
    refusals.record('a');
    expect(refusals.verdict('a').limited).toBe(true);
  });

  it('holds at most the bound of addresses, dropping the oldest window', () => {
    const refusals = new RefusedAuthentications(1, clock, 2);
    refusals.record('a');
    nowMs += 1;
    refusals.record('b');
    nowMs += 1;
    refusals.record('c');
    expect(refusals.size).toBe(2);
    expect(refusals.verdict('a').limited).toBe(false);
    expect(refusals.verdict('b').limited).toBe(true);
    expect(refusals.verdict('c').limited).toBe(true);
  });
});
