// Proves how internal delivery states read to the partner, and that each list
// filter's SQL condition matches exactly the statuses that read as that filter.
import { filterCondition, PARTNER_DELIVERY_FILTERS, partnerStatusOf } from './partner-delivery-status';

describe('partner delivery status', () => {
  it.each([
    ['pending', 0, 'pending'],
    ['delivering', 0, 'pending'],
    ['pending', 2, 'failing'],
    ['delivering', 1, 'failing'],
    ['delivered', 1, 'delivered'],
    ['dead', 7, 'dead'],
    ['no_endpoint', 0, 'held'],
  ] as const)('%s after %i failed attempts reads %s', (status, attempts, expected) => {
    expect(partnerStatusOf(status, attempts)).toBe(expected);
  });

  it('gives every filter its SQL condition', () => {
    expect(filterCondition('delivered')).toBe("status = 'delivered'");
    expect(filterCondition('dead')).toBe("status = 'dead'");
    expect(filterCondition('failing')).toBe("status IN ('pending', 'delivering') AND attempt_count > 0");
    expect(PARTNER_DELIVERY_FILTERS).toEqual(['delivered', 'failing', 'dead']);
  });
});
