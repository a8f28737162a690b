const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a UUID in canonical lower-case form, as every service writes them. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
