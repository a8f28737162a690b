/**
 * One unary call on a fresh channel, bypassing the platform's client (no breaker, no retries,
 * no identity of its own beyond the channel's credentials), for specs that prove what a server
 * answers a given caller. Resolves to the gRPC status code, 0 when the call succeeded.
 */
import { ChannelCredentials, Client, Metadata, ServiceError, status } from '@grpc/grpc-js';

/** The parts of a generated method definition a raw call needs. */
export interface RawMethod<Req, Res> {
  path: string;
  requestSerialize: (value: Req) => Buffer;
  responseDeserialize: (bytes: Buffer) => Res;
}

export interface RawCallTarget {
  address: string;
  credentials: ChannelCredentials;
  /** The name the server's certificate carries (the service's identity). */
  serverName: string;
  deadlineMs: number;
}

export function rawCallStatus<Req, Res>(
  target: RawCallTarget,
  method: RawMethod<Req, Res>,
  request: Req,
): Promise<number> {
  const client = new Client(target.address, target.credentials, {
    'grpc.ssl_target_name_override': target.serverName,
  });
  return new Promise<number>((resolve) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + target.deadlineMs },
      (error: ServiceError | null) => resolve(error ? error.code : status.OK),
    );
  }).finally(() => client.close());
}
