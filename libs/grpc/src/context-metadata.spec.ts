// Proves the request context crosses a gRPC hop: request id, partner, the API
// key of a partner request and the operator name all arrive as sent, and an
// over-long value (a forged or garbled header) is dropped, not truncated.
import { contextToMetadata, metadataToContext } from './context-metadata';

describe('request context in gRPC metadata', () => {
  it('carries the ids and who acted to the next service', () => {
    const sent = {
      requestId: 'req-1',
      partnerId: '6f1c1a52-6d0e-4f51-9b6c-2f0d2b8a1e11',
      credentialKey: 'pk_test_abc',
      operator: 'alice',
    };
    expect(metadataToContext(contextToMetadata(sent))).toEqual(sent);
  });

  it('sends nothing for what the context lacks, and drops a value over 128 characters', () => {
    const metadata = contextToMetadata({ requestId: 'req-2' });
    expect(metadata.get('x-credential-key')).toEqual([]);
    metadata.set('x-operator', 'a'.repeat(129));
    expect(metadataToContext(metadata)).toEqual({ requestId: 'req-2' });
  });
});
