// Proves a client's reachable() reads only local state: a channel failing to
// connect (TRANSIENT_FAILURE) or closed, or an open breaker, is unreachable; an
// idle, connecting or ready channel behind a closed or half-open breaker is
// reachable, and an idle one is asked to connect.
import { Client, connectivityState } from '@grpc/grpc-js';
import { allReachable, isReachable } from './client';

function clientIn(state: connectivityState, asked: boolean[] = []): Client {
  return {
    getChannel: () => ({
      getConnectivityState: (tryToConnect: boolean) => {
        asked.push(tryToConnect);
        return state;
      },
    }),
  } as unknown as Client;
}

describe('isReachable', () => {
  it.each([
    [connectivityState.IDLE, true],
    [connectivityState.CONNECTING, true],
    [connectivityState.READY, true],
    [connectivityState.TRANSIENT_FAILURE, false],
    [connectivityState.SHUTDOWN, false],
  ])('channel state %s behind a closed breaker: reachable %s', (state, expected) => {
    expect(isReachable(clientIn(state), { opened: false })).toBe(expected);
  });

  it('is unreachable while the breaker is open, whatever the channel', () => {
    expect(isReachable(clientIn(connectivityState.READY), { opened: true })).toBe(false);
  });

  it('asks an idle channel to connect, so a gated worker finds out when its peer is back', () => {
    const asked: boolean[] = [];
    isReachable(clientIn(connectivityState.IDLE, asked), { opened: false });
    expect(asked).toEqual([true]);
  });
});

describe('allReachable', () => {
  it('is open only while every client that can tell says reachable; one that cannot tell counts as reachable', () => {
    const ledger = { reachable: () => true };
    const trading = { reachable: () => true };
    const gate = allReachable(ledger, trading, {});
    expect(gate()).toBe(true);
    trading.reachable = () => false;
    expect(gate()).toBe(false);
  });
});
