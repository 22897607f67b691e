import { expectTypeOf, test } from 'vitest';
import type {
  ListenAddress,
  OvsdbServer,
  RemoteOptions,
  ServerTlsOptions,
} from '../../src/server/index.js';

test('listen takes a remote and its options; setTls takes TLS material or undefined', () => {
  expectTypeOf<OvsdbServer['listen']>().parameters.toEqualTypeOf<
    [remote: string, options?: RemoteOptions]
  >();
  expectTypeOf<OvsdbServer['listen']>().returns.toEqualTypeOf<Promise<ListenAddress>>();
  expectTypeOf<RemoteOptions>().toEqualTypeOf<{
    readonly role?: string | undefined;
    readonly readOnly?: boolean | undefined;
    readonly probeIntervalMs?: number | undefined;
  }>();
  expectTypeOf<OvsdbServer['setTls']>().parameters.toEqualTypeOf<
    [tls: ServerTlsOptions | undefined]
  >();
  // A role must be a string.
  // @ts-expect-error
  const bad: RemoteOptions = { role: 1 };
  void bad;
});
