// Proves `collections configure` takes exactly its four flags, refuses missing
// or out-of-range ones (naming each) and a cap below the flat fee, and prints
// the terms the service stored.
import { CliError } from '../cli-error';
import type { OpsClients } from '../clients';
import { collectionsConfigure, parseCollectionsConfigure } from './collections-configure';

const PARTNER = '0b6c9d1e-8a2f-4c3b-9d4e-5f6a7b8c9d0e';

function refusal(values: Record<string, string>): string {
  try {
    parseCollectionsConfigure(values);
  } catch (error) {
    if (error instanceof CliError) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('collections configure', () => {
  it('parses the terms', () => {
    expect(
      parseCollectionsConfigure({
        partner: PARTNER,
        'fee-bps': '150',
        'fee-flat-minor': '25',
        'fee-cap-minor': '1000',
      }),
    ).toEqual({ partnerId: PARTNER, percentBps: 150, flatMinor: '25', capMinor: '1000' });
  });

  it('names every missing or bad flag', () => {
    const message = refusal({ partner: 'nope', 'fee-bps': '10001' });
    expect(message).toContain('--partner');
    expect(message).toContain('--fee-bps');
    expect(message).toContain('--fee-flat-minor (required)');
    expect(message).toContain('--fee-cap-minor (required)');
  });

  it('refuses a cap below the flat fee', () => {
    expect(refusal({ partner: PARTNER, 'fee-bps': '0', 'fee-flat-minor': '50', 'fee-cap-minor': '49' })).toContain(
      '--fee-cap-minor',
    );
  });

  it('calls the collections admin service and reports its answer', async () => {
    const calls: unknown[] = [];
    const clients = {
      collectionsAdmin: () => ({
        configureFees: async (request: unknown) => {
          calls.push(request);
          return { partnerId: PARTNER, fee: { percentBps: 150, flatMinor: '25', capMinor: '1000', currency: 'USD' } };
        },
      }),
    } as unknown as OpsClients;
    const result = await collectionsConfigure.run(
      { partnerId: PARTNER, percentBps: 150, flatMinor: '25', capMinor: '1000' },
      clients,
    );
    expect(calls).toEqual([{ partnerId: PARTNER, percentBps: 150, flatMinor: '25', capMinor: '1000' }]);
    expect(result).toEqual({ partnerId: PARTNER, percentBps: 150, flatMinor: 25, capMinor: 1000, currency: 'USD' });
    expect(collectionsConfigure.describe(result)).toContain('150 bps');
  });
});
