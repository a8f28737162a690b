import { Metadata } from '@grpc/grpc-js';
import { currentContext, RequestContext } from '@platform/logger';

const REQUEST_ID = 'x-request-id';
const PARTNER_ID = 'x-partner-id';

/** Metadata carrying the current request's ids to the next service. */
export function contextToMetadata(context: RequestContext = currentContext()): Metadata {
  const metadata = new Metadata();
  if (context.requestId) metadata.set(REQUEST_ID, context.requestId);
  if (context.partnerId) metadata.set(PARTNER_ID, context.partnerId);
  return metadata;
}

export function metadataToContext(metadata: Metadata): RequestContext {
  const read = (key: string) => {
    const [value] = metadata.get(key);
    return typeof value === 'string' && value.length <= 128 ? value : undefined;
  };
  return { requestId: read(REQUEST_ID), partnerId: read(PARTNER_ID) };
}
