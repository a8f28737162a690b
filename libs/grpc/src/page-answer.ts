/**
 * Answers that carry a page as one large `bytes` field (100 events or statement
 * lines as the JSON partners receive, 25–40 KB), serialised and read with fewer
 * copies of the page than the generated codec makes.
 *
 * Why: every Buffer of more than a few KB is memory outside V8's heap that V8
 * counts towards its next full collection, so each copy of a page made on its
 * way through a process brings that collection nearer. The generated codec
 * copies a page twice when it serialises it (`finish()`, then `Buffer.from`)
 * and once when it reads it (`Buffer.from(reader.bytes())`); grpc-js frames it
 * in one more copy on either side. Under a load of pages the gateway ran about
 * three times as many full collections per request as under order reads
 * (`--trace-gc`, docs/performance.md), most of a page's extra CPU on V8's
 * worker threads.
 *
 * - Serialising writes the other fields (the generated encoder) and the page
 *   into one reused scratch buffer and returns a view of it, valid only until
 *   the next answer is serialised anywhere in the process. That is safe because
 *   grpc-js (1.14, pinned) copies what the serialiser returns into its frame in
 *   the same synchronous step that called it (server-interceptors.js
 *   `serializeMessage`), and because servers never compress answers (an
 *   asynchronous compression would read the view later: `serverOptions` must
 *   not set `grpc.default_compression_algorithm`). page-answer.spec.ts fails
 *   should a copy be put off past the current task.
 * - Reading keeps the page as a view of the frame grpc-js received (a buffer
 *   it allocated for that frame and never writes again).
 * - A server replaces only the serialiser, a client only the reader
 *   (`withPageAnswer`'s `side`), so the scratch never serves a client.
 *
 * - A service that has the page as text (a database's one value) gives it as
 *   `pageText(text)`: the serialiser writes it as UTF-8 straight into the
 *   scratch, so the page never becomes a Buffer of its own on the way out
 *   (`Buffer.from(text)` was one 25–40 KB copy per answer).
 *
 * Same bytes on the wire as the generated codec: it writes fields in field
 * number order, and the page is the message's last field.
 */

/** The part of a ts-proto message codec used here. */
export interface MessageCodec<M> {
  encode(message: M): { finish(): Uint8Array };
  decode(input: Uint8Array): M;
}

/** The method definition fields replaced. */
interface AnswerCodec<Res> {
  responseSerialize: (value: Res) => Buffer;
  responseDeserialize: (buffer: Buffer) => Res;
}

/** Protobuf wire types (the low three bits of a field's tag). */
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

/**
 * A page held as the text it encodes as UTF-8, standing in a `bytes` field that
 * pageAnswerCodec serialises. To anything else it is an empty page: a service
 * serves it only through withPageAnswer (its server's definition), and the
 * services' end-to-end specs compare the page's bytes, so a server without it
 * fails them. (Making its `length` throw would turn that into a failed call,
 * but redefining a typed array's accessors may cost V8's typed-array fast paths
 * in the whole process; not done.)
 */
export class PageText extends Uint8Array {
  constructor(readonly text: string) {
    super(0);
  }
}

/**
 * `text` for a page field of an answer serialised by pageAnswerCodec (see
 * PageText). Typed as the generated `bytes` field (a Buffer) so a handler can
 * return it; it is no Buffer, and only that serialiser reads it.
 */
export function pageText(text: string): Buffer {
  return new PageText(text) as unknown as Buffer;
}

/** Answers up to this size are serialised into the reused scratch buffer; a larger one gets its own. */
export const SCRATCH_BYTES_MAX = 1024 * 1024;
const EMPTY = Buffer.alloc(0);
let scratch = EMPTY;

function scratchOf(size: number): Buffer {
  if (size > SCRATCH_BYTES_MAX) return Buffer.allocUnsafe(size);
  if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_BYTES_MAX, Math.max(size, 64 * 1024)));
  return scratch;
}

function varintLength(value: number): number {
  let length = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) length += 1;
  return length;
}

function writeVarint(target: Buffer, offset: number, value: number): number {
  let rest = value >>> 0;
  while (rest > 0x7f) {
    target[offset++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  target[offset++] = rest;
  return offset;
}

/** A varint at `offset`: its value and the offset after it; null past the end or beyond 32 bits. */
function readVarint(source: Uint8Array, offset: number): { value: number; next: number } | null {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (offset >= source.length) return null;
    const byte = source[offset++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return { value, next: offset };
  }
  return null;
}

/**
 * Where the message's last field starts and its value lies, and how often
 * `fieldNumber` occurs; null for anything this scan does not read (groups,
 * a truncated field), which the generated decoder then handles.
 */
export function lastFieldOf(
  message: Uint8Array,
  fieldNumber: number,
): { fieldNumber: number; wireType: number; start: number; valueStart: number; occurrences: number } | null {
  let offset = 0;
  let occurrences = 0;
  let last = null;
  while (offset < message.length) {
    const start = offset;
    const tag = readVarint(message, offset);
    if (tag === null) return null;
    const number = Math.floor(tag.value / 8);
    const wireType = tag.value % 8;
    // Field 0 does not exist: the generated decoder stops there, so leave such a message to it.
    if (number === 0) return null;
    let valueStart = tag.next;
    if (wireType === WIRE_VARINT) {
      const value = readVarint(message, tag.next);
      if (value === null) return null;
      offset = value.next;
    } else if (wireType === WIRE_FIXED64) offset = tag.next + 8;
    else if (wireType === WIRE_FIXED32) offset = tag.next + 4;
    else if (wireType === WIRE_LENGTH_DELIMITED) {
      const length = readVarint(message, tag.next);
      if (length === null) return null;
      valueStart = length.next;
      offset = length.next + length.value;
    } else return null;
    if (offset > message.length) return null;
    if (number === fieldNumber) occurrences += 1;
    last = { fieldNumber: number, wireType, start, valueStart, occurrences: 0 };
  }
  return last === null ? null : { ...last, occurrences };
}

/** The field number of `key`, read from the codec's own encoding of a message holding only it. */
function fieldNumberOf<Res, K extends keyof Res>(codec: MessageCodec<Res>, key: K): number {
  const empty = codec.decode(EMPTY);
  if (!(empty[key] instanceof Uint8Array)) throw new Error(`${String(key)} is not a bytes field of this message`);
  const probe = codec.encode({ ...empty, [key]: Buffer.from([0]) }).finish();
  const field = lastFieldOf(probe, -1);
  if (field === null || field.wireType !== WIRE_LENGTH_DELIMITED || field.start !== 0) {
    throw new Error(`${String(key)} is not a bytes field of this message`);
  }
  return field.fieldNumber;
}

/**
 * The serialiser and reader of an answer whose `key` is a `bytes` field, the
 * message's highest-numbered (else the bytes differ from the generated
 * codec's, though any protobuf reader reads them alike).
 */
export function pageAnswerCodec<Res, K extends keyof Res>(codec: MessageCodec<Res>, key: K): AnswerCodec<Res> {
  const fieldNumber = fieldNumberOf(codec, key);
  const tag = fieldNumber * 8 + WIRE_LENGTH_DELIMITED;
  return {
    responseSerialize(value) {
      const page = value[key] as unknown as Uint8Array;
      const text = page instanceof PageText ? page.text : null;
      const pageBytes = text === null ? page.byteLength : Buffer.byteLength(text, 'utf8');
      if (pageBytes === 0) return Buffer.from(codec.encode({ ...value, [key]: EMPTY }).finish());
      const head = codec.encode({ ...value, [key]: EMPTY }).finish();
      const size = head.length + varintLength(tag) + varintLength(pageBytes) + pageBytes;
      const target = scratchOf(size);
      target.set(head, 0);
      const offset = writeVarint(target, writeVarint(target, head.length, tag), pageBytes);
      if (text === null) target.set(page, offset);
      else target.write(text, offset, pageBytes, 'utf8');
      return target.subarray(0, size);
    },
    responseDeserialize(buffer) {
      const last = lastFieldOf(buffer, fieldNumber);
      const isPageLast = last !== null && last.fieldNumber === fieldNumber && last.wireType === WIRE_LENGTH_DELIMITED;
      if (!isPageLast || last.occurrences !== 1) return codec.decode(buffer);
      const message = codec.decode(buffer.subarray(0, last.start));
      (message as Record<K, unknown>)[key] = buffer.subarray(last.valueStart);
      return message;
    },
  };
}

/**
 * `definition` with `method`'s answer serialised by pageAnswerCodec (`side` 'serve': a server's
 * definition) or read by it ('read': a client's).
 */
export function withPageAnswer<D extends Record<string, object>, Res, K extends keyof Res>(
  definition: D,
  method: keyof D,
  codec: MessageCodec<Res>,
  key: K,
  side: 'serve' | 'read',
): D {
  const { responseSerialize, responseDeserialize } = pageAnswerCodec(codec, key);
  const replaced = side === 'serve' ? { responseSerialize } : { responseDeserialize };
  return { ...definition, [method]: { ...definition[method], ...replaced } };
}
