// Proves pageAnswerCodec writes the same bytes as the generated codec for both
// page answers (with a page, without one, as lines), reads them back to the same
// message with the page as a view of the received buffer (no copy), reads what
// it does not expect (the page before another field, the page twice) exactly as
// the generated decoder does, and that grpc-js copies a serialised answer before
// the next one is serialised: the reused scratch buffer is overwritten right after
// each answer, and the client still receives every answer intact. A page given as
// text (pageText) is written as the same bytes as its UTF-8 Buffer, alone and
// over grpc-js beside pages given as Buffers.
import { ServerUnaryCall, ServiceDefinition, sendUnaryData, UntypedServiceImplementation } from '@grpc/grpc-js';
import { ledger, webhookDeliveryPartnerFeed } from '@platform/proto';
import { lastFieldOf, pageAnswerCodec, pageText, withPageAnswer } from './page-answer';
import { answeredAtOnce } from './answer-at-once';
import { InsecurePair, startInsecurePair } from './testing/insecure-server';

const statementCodec = pageAnswerCodec(ledger.ListStatementResponse, 'pageJson');
const eventsCodec = pageAnswerCodec(webhookDeliveryPartnerFeed.ListEventsResponse, 'pageJson');

/** A page of JSON with characters of every UTF-8 length, `size` bytes or a little more. */
function pageOf(size: number): Buffer {
  const line = '{"id":"a","note":"é€😀\\"\\\\"}';
  const lines: string[] = [];
  while (lines.join(',').length < size) lines.push(line);
  return Buffer.from(`[${lines.join(',')}]`, 'utf8');
}

const statementLine: ledger.StatementLine = {
  lineId: 'l1',
  accountId: 'a1',
  currency: 'KES',
  type: 'credit',
  amount: '1.00',
  availableAfter: '1.00',
  createdAt: '2026-11-27T10:00:00.000Z',
  resourceId: 'r1',
  entryKind: 'kes_credit',
};

const statementAnswers: Array<[string, ledger.ListStatementResponse]> = [
  ['a page with a cursor', { lines: [], nextCursor: 'cursor-1', pageJson: pageOf(30_000) }],
  ['a last page', { lines: [], nextCursor: '', pageJson: pageOf(200) }],
  ['an empty page', { lines: [], nextCursor: '', pageJson: Buffer.from('[]') }],
  ['lines, no page', { lines: [statementLine, statementLine], nextCursor: 'c', pageJson: Buffer.alloc(0) }],
];

const eventsAnswers: Array<[string, webhookDeliveryPartnerFeed.ListEventsResponse]> = [
  ['a page', { events: [], nextAfterEventId: 'e-100', retentionDays: 30, pageJson: pageOf(40_000) }],
  [
    'a page of more than a megabyte',
    { events: [], nextAfterEventId: '', retentionDays: 30, pageJson: pageOf(1_100_000) },
  ],
  [
    'events, no page',
    {
      events: [{ eventId: 'e1', eventType: 'order.settled', envelopeJson: '{}' }],
      nextAfterEventId: '',
      retentionDays: 30,
      pageJson: Buffer.alloc(0),
    },
  ],
];

describe('pageAnswerCodec', () => {
  it.each(statementAnswers)('writes and reads a statement answer (%s) as the generated codec does', (_, answer) => {
    const generated = Buffer.from(ledger.ListStatementResponse.encode(answer).finish());
    const written = statementCodec.responseSerialize(answer);
    expect(Buffer.compare(written, generated)).toBe(0);
    expect(statementCodec.responseDeserialize(Buffer.from(written))).toEqual(
      ledger.ListStatementResponse.decode(generated),
    );
  });

  it.each(eventsAnswers)('writes and reads an events answer (%s) as the generated codec does', (_, answer) => {
    const generated = Buffer.from(webhookDeliveryPartnerFeed.ListEventsResponse.encode(answer).finish());
    const written = eventsCodec.responseSerialize(answer);
    expect(Buffer.compare(written, generated)).toBe(0);
    expect(eventsCodec.responseDeserialize(Buffer.from(written))).toEqual(
      webhookDeliveryPartnerFeed.ListEventsResponse.decode(generated),
    );
  });

  it.each([...statementAnswers, ...eventsAnswers])(
    'writes a page given as text (%s) as the same bytes as its UTF-8 Buffer',
    (_, answer) => {
      const asText = { ...answer, pageJson: pageText(Buffer.from(answer.pageJson).toString('utf8')) };
      const [codec, generated] =
        'lines' in answer
          ? [statementCodec, ledger.ListStatementResponse.encode(answer).finish()]
          : [eventsCodec, webhookDeliveryPartnerFeed.ListEventsResponse.encode(answer).finish()];
      const written = (codec as typeof eventsCodec).responseSerialize(
        asText as webhookDeliveryPartnerFeed.ListEventsResponse,
      );
      expect(Buffer.compare(written, Buffer.from(generated))).toBe(0);
    },
  );

  it('reads the page as a view of the received buffer, not a copy', () => {
    const received = Buffer.from(statementCodec.responseSerialize(statementAnswers[0]![1]));
    const read = statementCodec.responseDeserialize(received);
    expect(read.pageJson.buffer).toBe(received.buffer);
    expect(read.pageJson.byteOffset + read.pageJson.byteLength).toBe(received.byteOffset + received.byteLength);
  });

  it('reads a page followed by another field, and a page sent twice, as the generated decoder does', () => {
    const page = Buffer.from('[1]');
    const cursorAfterPage = Buffer.concat([
      Buffer.from([0x1a, page.length]),
      page,
      Buffer.from([0x12, 1]),
      Buffer.from('c'),
    ]);
    const pageTwice = Buffer.concat([Buffer.from([0x1a, 1, 0x41, 0x1a, page.length]), page]);
    for (const buffer of [cursorAfterPage, pageTwice]) {
      expect(statementCodec.responseDeserialize(buffer)).toEqual(ledger.ListStatementResponse.decode(buffer));
    }
    expect(statementCodec.responseDeserialize(pageTwice).pageJson.toString()).toBe('[1]');
  });

  it('leaves a truncated answer to the generated decoder, which refuses it', () => {
    const truncated = statementCodec.responseSerialize(statementAnswers[0]![1]).subarray(0, 100);
    expect(lastFieldOf(truncated, 3)).toBeNull();
    expect(() => statementCodec.responseDeserialize(Buffer.from(truncated))).toThrow();
  });

  it('refuses a field that is not bytes', () => {
    expect(() => pageAnswerCodec(ledger.ListStatementResponse, 'nextCursor' as 'pageJson')).toThrow(
      /not a bytes field/,
    );
  });

  it("replaces only the named method of a definition, and on each side only that side's codec", () => {
    const args = [ledger.LedgerService, 'listStatement', ledger.ListStatementResponse, 'pageJson'] as const;
    const served = withPageAnswer(...args, 'serve');
    const read = withPageAnswer(...args, 'read');
    const original = ledger.LedgerService.listStatement;
    expect(served.listStatement.path).toBe(original.path);
    expect(served.listStatement.responseSerialize).not.toBe(original.responseSerialize);
    expect(served.listStatement.responseDeserialize).toBe(original.responseDeserialize);
    expect(read.listStatement.responseSerialize).toBe(original.responseSerialize);
    expect(read.listStatement.responseDeserialize).not.toBe(original.responseDeserialize);
    expect(served.getBalances).toBe(ledger.LedgerService.getBalances);
  });

  it('leaves a message with a field numbered 0 to the generated decoder, which stops there', () => {
    // Field 2 "c", a zero tag, then field 3: the generated decoder ends at the zero tag.
    const odd = Buffer.from([0x12, 0x01, 0x63, 0x00, 0x00, 0x1a, 0x03, 0x5b, 0x31, 0x5d]);
    expect(lastFieldOf(odd, 3)).toBeNull();
    const read = withPageAnswer(
      ledger.LedgerService,
      'listStatement',
      ledger.ListStatementResponse,
      'pageJson',
      'read',
    );
    expect(read.listStatement.responseDeserialize(odd)).toEqual(ledger.ListStatementResponse.decode(odd));
  });
});

describe('answers serialised into the reused scratch buffer, over grpc-js', () => {
  const args = [
    webhookDeliveryPartnerFeed.WebhookPartnerService,
    'listEvents',
    webhookDeliveryPartnerFeed.ListEventsResponse,
    'pageJson',
  ] as const;
  // The server's serialiser and the client's reader, as a service and the gateway each set theirs.
  const method = {
    ...withPageAnswer(...args, 'serve').listEvents,
    responseDeserialize: withPageAnswer(...args, 'read').listEvents.responseDeserialize,
  };
  let pair: InsecurePair;

  /** Each request's answer is its own page: its limit's digit repeated. */
  const pageFor = (limit: number) => Buffer.from(`["${String(limit % 10).repeat(30_000)}"]`);

  beforeAll(async () => {
    const serialize = method.responseSerialize;
    const listEvents = {
      ...method,
      // Overwrites what the answer was serialised into as soon as the current task ends:
      // an answer written from the scratch after sendMessage returned would arrive scribbled.
      responseSerialize: (value: webhookDeliveryPartnerFeed.ListEventsResponse) => {
        const written = serialize(value);
        queueMicrotask(() => written.fill(0x21));
        return written;
      },
    };
    const answer = (
      call: ServerUnaryCall<
        webhookDeliveryPartnerFeed.ListEventsRequest,
        webhookDeliveryPartnerFeed.ListEventsResponse
      >,
      callback: sendUnaryData<webhookDeliveryPartnerFeed.ListEventsResponse>,
    ) =>
      callback(null, {
        events: [],
        nextAfterEventId: 'next',
        retentionDays: 30,
        // Odd requests' pages as text, written straight into the scratch.
        pageJson:
          call.request.limit % 2 === 1
            ? pageText(pageFor(call.request.limit).toString('utf8'))
            : pageFor(call.request.limit),
      });
    // Answered the way every platform server answers (answer-at-once.ts), and the way grpc-js does alone.
    pair = await startInsecurePair(
      {
        listEvents,
        listEventsPlain: { ...listEvents, path: '/test.Plain/ListEvents' },
      } as unknown as ServiceDefinition,
      { listEvents: answeredAtOnce(answer), listEventsPlain: answer } as unknown as UntypedServiceImplementation,
    );
  });

  afterAll(() => pair.close());

  it.each([method.path, '/test.Plain/ListEvents'])('delivers every answer intact, 20 at once (%s)', async (path) => {
    const call = (limit: number) =>
      new Promise<webhookDeliveryPartnerFeed.ListEventsResponse>((resolve, reject) =>
        pair.client.makeUnaryRequest(
          path,
          method.requestSerialize,
          method.responseDeserialize,
          { partnerId: 'p', afterEventId: '', eventType: '', limit, asJsonArray: true },
          (error, value) => (error ? reject(error) : resolve(value!)),
        ),
      );
    const limits = Array.from({ length: 20 }, (_, index) => index + 1);
    const answers = await Promise.all(limits.map(call));
    answers.forEach((answer, index) => {
      expect(answer.nextAfterEventId).toBe('next');
      expect(Buffer.compare(answer.pageJson, pageFor(limits[index]!))).toBe(0);
    });
  });
});
