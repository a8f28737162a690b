// Proves the statement page's answer: the ledger's page_json is answered as the
// bytes it came as, with the next cursor in X-Next-Cursor, and asked for on
// every call; a page the ledger answers as lines is presented here (the sign
// spelled out as direction, an empty resource as null), the same JSON type
// and headers either way.
import type { Response } from 'express';
import type { ledger } from '@platform/proto';
import { JSON_CONTENT_TYPE } from '../json-response';
import { listAccountTransactionsHandler } from './balances.route';

const LINE: ledger.StatementLine = {
  lineId: 'line-1',
  accountId: 'account-1',
  currency: 'KES',
  type: 'hold_placed',
  amount: '-125.00',
  availableAfter: '875.00',
  createdAt: '2026-11-26T10:00:00.000Z',
  resourceId: '',
  entryKind: '',
};

/** The parts of a Response the handler uses, recording what it was given. */
function recordingResponse() {
  const headers: Record<string, unknown> = {};
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    setHeader: (name: string, value: unknown) => {
      headers[name.toLowerCase()] = value;
      return res;
    },
    status: (code: number) => {
      sent.status = code;
      return res;
    },
    json: (body: unknown) => {
      headers['content-type'] = JSON_CONTENT_TYPE;
      sent.body = Buffer.from(JSON.stringify(body), 'utf8');
      return res;
    },
    end: (body: unknown) => {
      sent.body = body;
      return res;
    },
  };
  return { res: res as unknown as Response, headers, sent };
}

async function answered(response: ledger.ListStatementResponse) {
  const listStatement = jest.fn(async () => response);
  const recorded = recordingResponse();
  const handler = listAccountTransactionsHandler({ ledger: { listStatement } });
  await handler(
    { partnerId: 'partner-1', params: { accountId: 'account-1' }, query: { limit: 100 } } as never,
    recorded.res,
  );
  return { ...recorded, listStatement };
}

describe('listAccountTransactionsHandler', () => {
  it("answers the ledger's page_json as it came, asking for it", async () => {
    const pageJson = Buffer.from('[{"id":"line-1","resourceId":"x «é»"}]', 'utf8');
    const { sent, headers, listStatement } = await answered({ lines: [], nextCursor: 'next-1', pageJson });
    expect(listStatement).toHaveBeenCalledWith(expect.objectContaining({ asJsonArray: true, limit: 100, cursor: '' }));
    expect(sent).toEqual({ status: 200, body: pageJson });
    expect(headers).toEqual({
      'x-next-cursor': 'next-1',
      'content-type': JSON_CONTENT_TYPE,
      'content-length': pageJson.byteLength,
    });
  });

  it('presents lines when the ledger answers them instead, without a cursor on the last page', async () => {
    const { sent, headers } = await answered({ lines: [LINE], nextCursor: '', pageJson: Buffer.alloc(0) });
    expect(sent.status).toBe(200);
    expect(headers['x-next-cursor']).toBeUndefined();
    expect(headers['content-type']).toBe(JSON_CONTENT_TYPE);
    expect((sent.body as Buffer).toString('utf8')).toBe(
      '[{"id":"line-1","accountId":"account-1","currency":"KES","type":"hold_placed","amount":"-125.00",' +
        '"direction":"debit","availableAfter":"875.00","createdAt":"2026-11-26T10:00:00.000Z","resourceId":null}]',
    );
  });
});
