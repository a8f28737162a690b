/**
 * A delivery's status as webhook-delivery keeps it: `pending` (waiting for its
 * next attempt), `delivering` (an attempt in flight under a lease), `delivered`
 * and `dead` (closed), `no_endpoint` (held until the partner has an endpoint).
 */
export type DeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'dead' | 'no_endpoint';
