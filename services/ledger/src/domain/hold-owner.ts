/**
 * A hold's owner: "<service>:<kind>:<id>", the record in the calling service
 * the hold exists for (e.g. "payouts:transfer:<transfer id>"). The service
 * part is the identity that placed the hold, never another: a service lists
 * and reconciles only its own holds, so one service's bug cannot make another
 * void a hold it still needs. The table's CHECK restates the same shape.
 */
const HOLD_OWNER = /^([a-z][a-z-]{0,30}[a-z]):[a-z][a-z_]{0,31}:[A-Za-z0-9-]{1,64}$/;

/** Whether `owner` is well formed and names `caller` as its service. */
export function isOwnerOf(owner: string, caller: string | null): boolean {
  const match = HOLD_OWNER.exec(owner);
  return match !== null && caller !== null && match[1] === caller;
}

/** What every owner of `service` starts with. */
export function ownerPrefix(service: string): string {
  return `${service}:`;
}
