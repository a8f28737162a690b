// Proves the collection state machine allows exactly the documented transitions
// and that every terminal state stays terminal.
import { assertTransition, canTransition, COLLECTION_STATUSES } from './collection';

describe('collection transitions', () => {
  it('allows the documented path and its exits', () => {
    expect(canTransition('open', 'received')).toBe(true);
    expect(canTransition('received', 'crediting')).toBe(true);
    expect(canTransition('crediting', 'credited')).toBe(true);
    expect(canTransition('open', 'refunded')).toBe(true);
    expect(canTransition('open', 'expired')).toBe(true);
  });

  it('never leaves a terminal state and never skips crediting', () => {
    for (const terminal of ['credited', 'refunded', 'expired'] as const) {
      for (const to of COLLECTION_STATUSES) expect(canTransition(terminal, to)).toBe(false);
    }
    expect(canTransition('received', 'credited')).toBe(false);
    expect(canTransition('crediting', 'open')).toBe(false);
    expect(() => assertTransition('expired', 'received')).toThrow('expired → received');
  });
});
