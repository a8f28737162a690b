import { Metadata } from '@grpc/grpc-js';
import { currentContext, RequestContext } from '@platform/logger';

const REQUEST_ID = 'x-request-id';
const PARTNER_ID = 'x-partner-id';
const CREDENTIAL_KEY = 'x-credential-key';
const OPERATOR = 'x-operator';

/**
 * Metadata carrying the current request's ids to the next service: the request
 * id, the partner, and who acted (the API key of a partner request, the
 * operator name the ops tool declares), which audit records name.
 */
export function contextToMetadata(context: RequestContext = currentContext()): Metadata {
  const metadata = new Metadata();
  if (context.requestId) metadata.set(REQUEST_ID, context.requestId);
  if (context.partnerId) metadata.set(PARTNER_ID, context.partnerId);
  if (context.credentialKey) metadata.set(CREDENTIAL_KEY, context.credentialKey);
  if (context.operator) metadata.set(OPERATOR, context.operator);
  return metadata;
}

export function metadataToContext(metadata: Metadata): RequestContext {
  const read = (key: string) => {
    const [value] = metadata.get(key);
    return typeof value === 'string' && value.length <= 128 ? value : undefined;
  };
  return {
    requestId: read(REQUEST_ID),
    partnerId: read(PARTNER_ID),
    credentialKey: read(CREDENTIAL_KEY),
    operator: read(OPERATOR),
  };
}
