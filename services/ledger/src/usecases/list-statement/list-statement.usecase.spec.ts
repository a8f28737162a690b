// Proves the statement use case without a database: an account that is not the
// caller's (the repository finds no such account of the partner) or an id that
// is not one (nothing is read) is ACCOUNT_NOT_FOUND; bad paging parameters are named together; lines come back typed, with
// amounts at the currency's scale, an opening line with no resource, and the
// next cursor only when a further line was fetched. As a JSON page: the
// database's array is answered with the cursor of the page's last line, and a
// page the database flags (a line only this code can present) is read again as lines.
import { AppError } from '@platform/errors';
import { decodeKeysetCursor } from '@platform/persistence';
import type {
  OwnedStatementJsonPage,
  StatementLineRow,
  StatementRepository,
} from '../../persistence/statement.repository';
import { ListStatementUseCase } from './list-statement.usecase';

const PARTNER = '11111111-1111-4111-8111-111111111111';
const ACCOUNT = '22222222-2222-4222-8222-222222222222';
const LINE = (index: number, overrides: Partial<StatementLineRow> = {}): StatementLineRow => ({
  lineId: `33333333-3333-4333-8333-33333333333${index}`,
  accountId: ACCOUNT,
  currency: 'KES',
  source: 'posting',
  entryKind: 'transfer',
  amount: '-125.000000',
  availableAfter: '875.000000',
  createdAt: '2026-11-26T10:00:00.000Z',
  createdAtExact: `2026-11-26 10:00:00.00000${index}+00`,
  resourceId: '44444444-4444-4444-8444-444444444444',
  ...overrides,
});

function useCase(owned: boolean, rows: StatementLineRow[], jsonPage: OwnedStatementJsonPage | null = null) {
  const page = jest.fn(async () => (owned ? { currency: 'KES' as const, rows } : null));
  const pageJson = jest.fn(async () => (owned ? jsonPage : null));
  const statements = { ownedPage: page, ownedPageJson: pageJson } as unknown as StatementRepository;
  return { subject: new ListStatementUseCase(statements), page, pageJson };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('ListStatementUseCase', () => {
  it("answers ACCOUNT_NOT_FOUND for an account that is not the partner's, and for an id that is not one, reading no line", async () => {
    const foreign = useCase(false, [LINE(1)]);
    expect(
      (await refusal(foreign.subject.execute({ partnerId: PARTNER, accountId: ACCOUNT, limit: 0, cursor: '' }))).code,
    ).toBe('ACCOUNT_NOT_FOUND');
    const malformed = useCase(true, [LINE(1)]);
    expect(
      (await refusal(malformed.subject.execute({ partnerId: PARTNER, accountId: 'not-an-id', limit: 0, cursor: '' })))
        .code,
    ).toBe('ACCOUNT_NOT_FOUND');
    expect(foreign.page).toHaveBeenCalledTimes(1);
    expect(malformed.page).not.toHaveBeenCalled();
  });

  it('names every bad paging parameter at once', async () => {
    const { subject } = useCase(true, []);
    const error = await refusal(
      subject.execute({ partnerId: PARTNER, accountId: ACCOUNT, from: 'soon', limit: 101, cursor: '!!' }),
    );
    expect(error.fields).toEqual(['from', 'limit', 'cursor']);
  });

  it("types each line, formats amounts at the currency's scale and pages by the last line shown", async () => {
    const { subject, page } = useCase(true, [
      LINE(2),
      LINE(1, { source: 'hold_placed', entryKind: null, amount: '-125.000000', availableAfter: '1000.000000' }),
      LINE(0, {
        source: 'opening_balance',
        entryKind: null,
        amount: '1125.000000',
        availableAfter: '1125.000000',
        resourceId: null,
      }),
    ]);
    const { lines, nextCursor } = await subject.execute({
      partnerId: PARTNER,
      accountId: ACCOUNT,
      limit: 2,
      cursor: '',
    });
    expect(page).toHaveBeenCalledWith(PARTNER, ACCOUNT, expect.objectContaining({ fetchLimit: 3, pageLimit: 2 }));
    expect(lines.map((line) => [line.type, line.amount, line.availableAfter, line.resourceId])).toEqual([
      ['transfer', '-125.00', '875.00', '44444444-4444-4444-8444-444444444444'],
      ['hold_placed', '-125.00', '1000.00', '44444444-4444-4444-8444-444444444444'],
    ]);
    expect(decodeKeysetCursor(nextCursor)).toEqual({ createdAt: '2026-11-26 10:00:00.000001+00', id: LINE(1).lineId });
  });

  it('gives no cursor on the last page, and no resource on an opening line', async () => {
    const { subject } = useCase(true, [LINE(0, { source: 'opening_balance', entryKind: null, resourceId: null })]);
    const { lines, nextCursor } = await subject.execute({
      partnerId: PARTNER,
      accountId: ACCOUNT,
      limit: 0,
      cursor: '',
    });
    expect(nextCursor).toBe('');
    expect(lines[0]).toMatchObject({ type: 'opening_balance', resourceId: '' });
  });

  it("answers the database's JSON page with the cursor of its last line, and none on the last page", async () => {
    const last = { createdAt: '2026-11-26 10:00:00.000001+00', id: LINE(1).lineId };
    const more = useCase(true, [], { fetched: 3, json: '[{"id":"a"},{"id":"b"}]', last, exceptional: false });
    const query = { partnerId: PARTNER, accountId: ACCOUNT, limit: 2, cursor: '' };
    const answered = await more.subject.executeAsJsonArray(query);
    expect(answered).toEqual({ json: '[{"id":"a"},{"id":"b"}]', nextCursor: expect.any(String) });
    expect(decodeKeysetCursor(answered.nextCursor)).toEqual(last);
    expect(more.pageJson).toHaveBeenCalledWith(
      PARTNER,
      ACCOUNT,
      expect.objectContaining({ fetchLimit: 3, pageLimit: 2 }),
    );
    expect(more.page).not.toHaveBeenCalled();
    const lastPage = useCase(true, [], { fetched: 2, json: '[{"id":"a"},{"id":"b"}]', last, exceptional: false });
    expect((await lastPage.subject.executeAsJsonArray(query)).nextCursor).toBe('');
  });

  it('reads a flagged page again as lines, and refuses as execute does', async () => {
    const flagged = useCase(true, [LINE(1, { entryKind: 'kes_fee_test' })], {
      fetched: 1,
      json: '[]',
      last: null,
      exceptional: true,
    });
    const answered = await flagged.subject.executeAsJsonArray({
      partnerId: PARTNER,
      accountId: ACCOUNT,
      limit: 0,
      cursor: '',
    });
    expect(answered.json).toBeUndefined();
    expect(answered.lines?.map((line) => line.type)).toEqual(['fee']);
    const foreign = useCase(false, []);
    expect(
      (
        await refusal(
          foreign.subject.executeAsJsonArray({ partnerId: PARTNER, accountId: ACCOUNT, limit: 0, cursor: '' }),
        )
      ).code,
    ).toBe('ACCOUNT_NOT_FOUND');
    expect(
      (
        await refusal(
          foreign.subject.executeAsJsonArray({ partnerId: PARTNER, accountId: ACCOUNT, limit: 0, cursor: '!' }),
        )
      ).fields,
    ).toEqual(['cursor']);
    expect(foreign.page).not.toHaveBeenCalled();
  });
});
