// Proves a breaker's state gauge follows its events (one-hot over closed,
// half_open and open), each change counts one transition to its new state, and
// calls refused while open are counted; the series exist from the start.
import { EventEmitter } from 'node:events';
import { observeBreaker } from './breaker-metrics';
import { Registry } from './registry';

class FakeBreaker extends EventEmitter {
  opened = false;
  halfOpen = false;
}

describe('observeBreaker', () => {
  it('follows open, half-open and close, and counts rejections', async () => {
    const registry = new Registry();
    const breaker = new FakeBreaker();
    observeBreaker(breaker, 'ledger', registry);
    let text = await registry.metrics();
    expect(text).toContain('circuit_breaker_state{upstream="ledger",state="closed"} 1');
    expect(text).toContain('circuit_breaker_state{upstream="ledger",state="open"} 0');
    expect(text).toContain('circuit_breaker_transitions_total{upstream="ledger",to="open"} 0');
    breaker.emit('open');
    breaker.emit('reject');
    breaker.emit('reject');
    text = await registry.metrics();
    expect(text).toContain('circuit_breaker_state{upstream="ledger",state="open"} 1');
    expect(text).toContain('circuit_breaker_state{upstream="ledger",state="closed"} 0');
    expect(text).toContain('circuit_breaker_rejected_calls_total{upstream="ledger"} 2');
    breaker.emit('halfOpen');
    breaker.emit('close');
    text = await registry.metrics();
    expect(text).toContain('circuit_breaker_state{upstream="ledger",state="closed"} 1');
    expect(text).toContain('circuit_breaker_state{upstream="ledger",state="half_open"} 0');
    expect(text).toContain('circuit_breaker_transitions_total{upstream="ledger",to="open"} 1');
    expect(text).toContain('circuit_breaker_transitions_total{upstream="ledger",to="half_open"} 1');
    expect(text).toContain('circuit_breaker_transitions_total{upstream="ledger",to="closed"} 1');
  });

  it('starts from the state the breaker is in', async () => {
    const registry = new Registry();
    const breaker = new FakeBreaker();
    breaker.opened = true;
    observeBreaker(breaker, 'trading', registry);
    expect(await registry.metrics()).toContain('circuit_breaker_state{upstream="trading",state="open"} 1');
  });
});
