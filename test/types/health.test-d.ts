/**
 * The health API's public types: `client.health` is a read-only
 * `ClientHealth` whose role is one of four names, status events may carry
 * it, the metrics target samples a structural subset of it, and a dialed
 * transport may read the kernel's TCP state.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  type ClientHealth,
  connectDatabase,
  type ServerRole,
  type StatusEvent,
} from '../../src/client/index.js';
import { NB } from '../../src/nb/index.js';
import type { ClientHealthSample } from '../../src/observability/index.js';
import type { DialedTransport, TcpKernelState, TcpStateReader } from '../../src/ovsdb/index.js';

declare const remotes: string;
declare const other: ClientHealth;
const nb = connectDatabase({ remotes, model: NB });

describe('health', () => {
  it('client.health is a ClientHealth', () => {
    expectTypeOf(nb.health).toEqualTypeOf<ClientHealth>();
    expectTypeOf(nb.health.inSync).toEqualTypeOf<boolean>();
    expectTypeOf(nb.health.connected).toEqualTypeOf<boolean>();
    expectTypeOf(nb.health.lockHeld).toEqualTypeOf<boolean>();
    expectTypeOf(nb.health.remote).toEqualTypeOf<string | undefined>();
    expectTypeOf(nb.health.role).toEqualTypeOf<ServerRole | undefined>();
    expectTypeOf<ServerRole>().toEqualTypeOf<'leader' | 'follower' | 'relay' | 'standalone'>();
    expectTypeOf(nb.health.lastMessageAgeMs).toEqualTypeOf<number | undefined>();
    expectTypeOf(nb.health.lastUpdateAgeMs).toEqualTypeOf<number | undefined>();
    // @ts-expect-error: read-only
    nb.health.inSync = true;
    // @ts-expect-error: a getter, not a settable property
    nb.health = other;
  });

  it('status events carry the health; the metrics sample it', () => {
    expectTypeOf<StatusEvent['health']>().toEqualTypeOf<ClientHealth | undefined>();
    expectTypeOf<ClientHealth>().toMatchTypeOf<ClientHealthSample>();
  });

  it('a dialed transport may read the kernel state of its TCP connection', () => {
    expectTypeOf<DialedTransport['tcpState']>().toEqualTypeOf<TcpStateReader | undefined>();
    expectTypeOf<ReturnType<TcpStateReader>>().toEqualTypeOf<Promise<TcpKernelState | undefined>>();
    expectTypeOf<keyof TcpKernelState>().toEqualTypeOf<
      'unacknowledgedBytes' | 'retransmits' | 'unansweredProbes'
    >();
  });
});
