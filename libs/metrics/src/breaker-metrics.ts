/**
 * Circuit breakers (opossum) per upstream, from the breaker's own events:
 * - circuit_breaker_state{upstream, state}: 1 for the state it is in (closed,
 *   half_open, open), 0 for the others;
 * - circuit_breaker_transitions_total{upstream, to}: every change of state;
 * - circuit_breaker_rejected_calls_total{upstream}: calls refused unsent while open.
 * Only the structural part of opossum is used, so this library does not depend on it.
 */
import { counter, gauge, metricsRegistry, Registry } from './registry';

export type BreakerState = 'closed' | 'half_open' | 'open';

/** What is read from an opossum CircuitBreaker. */
export interface ObservableBreaker {
  readonly opened: boolean;
  readonly halfOpen: boolean;
  on(event: 'open' | 'halfOpen' | 'close' | 'reject', listener: () => void): unknown;
}

const STATES: readonly BreakerState[] = ['closed', 'half_open', 'open'];

function stateOf(breaker: ObservableBreaker): BreakerState {
  if (breaker.halfOpen) return 'half_open';
  return breaker.opened ? 'open' : 'closed';
}

/** Reports `breaker`'s state and transitions under `upstream` (the peer's name, e.g. "ledger"). */
export function observeBreaker(
  breaker: ObservableBreaker,
  upstream: string,
  registry: Registry = metricsRegistry,
): void {
  const state = gauge(
    {
      name: 'circuit_breaker_state',
      help: 'State of the circuit breaker towards an upstream: 1 for the state it is in (closed, half_open, open), 0 for the others.',
      labelNames: ['upstream', 'state'] as const,
    },
    registry,
  );
  const transitions = counter(
    {
      name: 'circuit_breaker_transitions_total',
      help: 'Changes of state of the circuit breaker towards an upstream, by the state it went to.',
      labelNames: ['upstream', 'to'] as const,
    },
    registry,
  );
  const rejected = counter(
    {
      name: 'circuit_breaker_rejected_calls_total',
      help: 'Calls to an upstream refused without being sent because its breaker was open.',
      labelNames: ['upstream'] as const,
    },
    registry,
  );
  const show = (current: BreakerState) => {
    for (const candidate of STATES) state.set({ upstream, state: candidate }, candidate === current ? 1 : 0);
  };
  const moved = (to: BreakerState) => () => {
    transitions.inc({ upstream, to });
    show(to);
  };
  for (const to of STATES) transitions.inc({ upstream, to }, 0);
  rejected.inc({ upstream }, 0);
  show(stateOf(breaker));
  breaker.on('open', moved('open'));
  breaker.on('halfOpen', moved('half_open'));
  breaker.on('close', moved('closed'));
  breaker.on('reject', () => rejected.inc({ upstream }));
}
