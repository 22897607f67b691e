/**
 * Mirrors against both servers: detaching one mirror from a port and
 * deleting another it holds, in one transaction, leaves the port without a
 * dangling reference (`mirrorDel` removes the mirror from its ports first:
 * ovsdb-server 3.1 leaves the weak reference when the transaction also
 * changes the port's `mirror_rules`); and the checks before anything is
 * sent.
 */

import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/client/open.js';
import {
  createNb,
  InvalidArgumentError,
  lsAdd,
  lspAdd,
  lspAttachMirror,
  lspDetachMirror,
  mirrorAdd,
  mirrorDel,
  NB,
  NotFoundError,
} from '../../src/nb/index.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { NB_SCHEMA_7_18 } from './helpers/differential.js';

describe.each(TARGETS.filter((t) => t.via === 'direct'))('mirrors against %s', (target) => {
  const fx = useTarget(target, { schemaPath: NB_SCHEMA_7_18 });

  async function dsl() {
    const client = connectDatabase({ remotes: [fx.remote], model: NB });
    fx.onClose(() => client.close());
    await client.ready;
    return { client, nb: createNb(client) };
  }

  it('detach one mirror and delete another in one transaction: no dangling reference', async () => {
    const { client, nb } = await dsl();
    for (let i = 0; i < 5; i++) {
      const { value: port } = await nb.transact((t) => {
        lsAdd(t, `msw${i}`);
        const p = lspAdd(t, `msw${i}`, `mp${i}`);
        mirrorAdd(t, `ma${i}`, { type: 'gre', index: 1, filter: 'to-lport', sink: '10.0.0.1' });
        mirrorAdd(t, `mb${i}`, { type: 'gre', index: 2, filter: 'to-lport', sink: '10.0.0.1' });
        lspAttachMirror(t, p, `ma${i}`);
        lspAttachMirror(t, p, `mb${i}`);
        return p;
      });
      await nb.transact((t) => {
        lspDetachMirror(t, port, `mb${i}`);
        mirrorDel(t, `ma${i}`);
      });
      const [reply] = (await fx.server
        .ovsdbClient(
          '--format=json',
          'transact',
          JSON.stringify([
            'OVN_Northbound',
            { op: 'select', table: 'Logical_Switch_Port', where: [['name', '==', `mp${i}`]] },
          ]),
        )
        .then(JSON.parse)) as { rows: { mirror_rules: unknown }[] }[];
      expect(reply!.rows[0]!.mirror_rules).toEqual(['set', []]);
      expect(client.get('Logical_Switch_Port', port)?.mirror_rules).toEqual([]);
    }
  });

  it('checks before anything is sent', async () => {
    const { nb } = await dsl();
    const failure = (build: Parameters<typeof nb.transact>[0]) =>
      nb.transact(build).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(
      await failure((t) =>
        mirrorAdd(t, 'bad', { type: 'gre', index: 1, filter: 'to-lport', sink: 'not-an-ip' }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      await failure((t) =>
        mirrorAdd(t, 'bad', { type: 'tunnel' as never, index: 1, filter: 'to-lport', sink: 'x' }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(await failure((t) => mirrorDel(t, 'no-such-mirror'))).toBeInstanceOf(NotFoundError);
    await nb.transact((t) => mirrorDel(t, 'no-such-mirror', { ifExists: true }));
    await nb.transact((t) => {
      lsAdd(t, 'msw-x');
      lspAdd(t, 'msw-x', 'mp-x');
      mirrorAdd(t, 'mx', { type: 'local', index: 0, filter: 'both', sink: 'eth1' });
    });
    expect(await failure((t) => lspDetachMirror(t, 'mp-x', 'mx'))).toBeInstanceOf(NotFoundError);
    await nb.transact((t) => lspDetachMirror(t, 'mp-x', 'mx', { ifExists: true }));
    await nb.transact((t) => lspAttachMirror(t, 'mp-x', 'mx'));
    await nb.transact((t) => lspAttachMirror(t, 'mp-x', 'mx', { mayExist: true }));
  });
});
