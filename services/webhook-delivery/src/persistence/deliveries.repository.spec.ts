// Proves the per-endpoint cap applied to one batch of claim candidates: rows
// are kept in due order while their partner has room, counting both what is
// already in flight and what this batch takes.
import { withinEndpointCap } from './deliveries.repository';

const row = (id: string, partner: string, inFlight: number) => ({ delivery_id: id, partner_id: partner, in_flight: inFlight });

describe('withinEndpointCap', () => {
  it('takes rows while each partner is under the cap', () => {
    const candidates = [row('a1', 'A', 2), row('a2', 'A', 2), row('b1', 'B', 0), row('a3', 'A', 2), row('b2', 'B', 0)];
    expect(withinEndpointCap(candidates, 4)).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('takes nothing of a partner already at the cap', () => {
    expect(withinEndpointCap([row('a1', 'A', 4), row('b1', 'B', 3), row('b2', 'B', 3)], 4)).toEqual(['b1']);
  });

  it('is empty for no candidates', () => {
    expect(withinEndpointCap([], 4)).toEqual([]);
  });
});
