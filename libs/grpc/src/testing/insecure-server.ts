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
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';

export interface InsecurePair {
  server: Server;
  client: Client;
  close(): void;
}

export async function startInsecurePair(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
): Promise<InsecurePair> {
  const server = new Server();
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
