const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ids are lowercase UUIDs; any other path segment names no resource (the route answers its NOT_FOUND code). */
export function isUuidParam(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
