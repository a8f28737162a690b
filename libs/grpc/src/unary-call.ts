/**
 * One unary call made straight on a grpc-js channel (its public
 * `Channel.createCall`), as grpc-js's own bottom layer makes it, without the
 * layers `Client.makeUnaryRequest` adds above: an EventEmitter per call, the
 * interceptor chain's set-up and, on every call, an `Error` built only to keep
 * the caller's stack for a failure (capturing a stack was 6–7 % of a client's
 * CPU per call, bench/grpc-call.mjs). The channel beneath is the same: its
 * deadline, retries, round_robin picking and transparent retries are
 * grpc-js's, as before. A failure comes back as a ServiceError (code, details,
 * metadata), as from makeUnaryRequest, without the caller's stack.
 */
import { ChannelInterface, Metadata, ServiceError, status, StatusObject } from '@grpc/grpc-js';

export interface UnaryMethod<Req, Res> {
  path: string;
  requestSerialize: (value: Req) => Buffer;
  responseDeserialize: (buffer: Buffer) => Res;
}

export type UnaryCallback<Res> = (error: ServiceError | null, response?: Res) => void;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The error a failed call reports, shaped as grpc-js's (`<code> <NAME>: <details>`). */
export function serviceError(answer: StatusObject): ServiceError {
  const error = new Error(`${answer.code} ${status[answer.code]}: ${answer.details}`) as ServiceError;
  error.code = answer.code;
  error.details = answer.details;
  error.metadata = answer.metadata;
  return error;
}

/**
 * Makes one unary call of `method` on `channel` with `metadata`, bounded by
 * `deadline` (ms since the epoch); `done` is called once, with the response or
 * the error, never synchronously.
 */
export function unaryCall<Req, Res>(
  channel: ChannelInterface,
  method: UnaryMethod<Req, Res>,
  request: Req,
  metadata: Metadata,
  deadline: number,
  done: UnaryCallback<Res>,
): void {
  let serialized: Buffer;
  try {
    serialized = method.requestSerialize(request);
  } catch (error) {
    const details = `Request message serialization failure: ${messageOf(error)}`;
    process.nextTick(done, serviceError({ code: status.INTERNAL, details, metadata: new Metadata() }));
    return;
  }
  const call = channel.createCall(method.path, deadline, undefined, null, undefined);
  let response: Res | undefined;
  let received = false;
  let readError: StatusObject | null = null;
  let ended = false;
  call.start(metadata, {
    onReceiveMetadata: () => undefined,
    onReceiveMessage: (message: Buffer) => {
      if (received) {
        call.cancelWithStatus(status.UNIMPLEMENTED, 'Too many responses received');
        return;
      }
      try {
        response = method.responseDeserialize(message);
        received = true;
      } catch (error) {
        readError = {
          code: status.INTERNAL,
          details: `Response message parsing error: ${messageOf(error)}`,
          metadata: new Metadata(),
        };
        call.cancelWithStatus(readError.code, readError.details);
      }
    },
    onReceiveStatus: (answer: StatusObject) => {
      if (ended) return;
      ended = true;
      if (readError) done(serviceError(readError));
      else if (answer.code !== status.OK) done(serviceError(answer));
      else if (!received)
        done(serviceError({ code: status.UNIMPLEMENTED, details: 'No message received', metadata: answer.metadata }));
      else done(null, response);
    },
  });
  call.startRead();
  call.sendMessageWithContext({}, serialized);
  call.halfClose();
}
