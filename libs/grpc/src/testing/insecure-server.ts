/**
 * A grpc-js server on a free local port without TLS, and a client of it, for
 * specs of what grpc-js itself does with a message (serialising, framing,
 * answering). Never used by a service.
 */
import {
  Client,
  credentials,
  Server,
  ServerCredentials,
  ServerOptions,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';

/** A unary method whose messages are UTF-8 strings; `codec` replaces a step (one that refuses a value, say). */
export function stringMethod(
  path: string,
  codec: {
    requestSerialize?: (value: string) => Buffer;
    responseSerialize?: (value: string) => Buffer;
    responseDeserialize?: (buffer: Buffer) => string;
  } = {},
) {
  const encode = (value: string) => Buffer.from(value, 'utf8');
  const decode = (buffer: Buffer) => buffer.toString('utf8');
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: codec.requestSerialize ?? encode,
    requestDeserialize: decode,
    responseSerialize: codec.responseSerialize ?? encode,
    responseDeserialize: codec.responseDeserialize ?? decode,
  } as const;
}

export interface InsecurePair {
  server: Server;
  client: Client;
  close(): void;
}

export async function startInsecurePair(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  options?: ServerOptions,
): Promise<InsecurePair> {
  const server = new Server(options);
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    server,
    client,
    close: () => {
      client.close();
      server.forceShutdown();
    },
  };
}
