/**
 * Deliberate differences from ovn-nbctl in what is accepted or refused
 * (those that change the database are asserted by the differential
 * scenarios marked "deliberate"). Each test runs ovn-nbctl and the DSL on
 * the same kind of input and asserts that they differ as docs/nb-dsl.md
 * says.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  aclAdd,
  aclDel,
  dhcpOptionsCreate,
  InvalidAddressError,
  InvalidArgumentError,
  InvalidDhcpOptionError,
  lbAdd,
  lrAdd,
  lrNatAdd,
  lrNatDel,
  lrPolicyDel,
  lsAdd,
  lspAdd,
  lspSetAddresses,
  type NbTxn,
  NotFoundError,
} from '../../src/nb/index.js';
import { NB_SCHEMA_7_18, type NbServer, nbctl, startNb } from './helpers/differential.js';

let s: NbServer;

beforeAll(async () => {
  s = await startNb(NB_SCHEMA_7_18);
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  const tables = Object.keys(s.client.model.schema.tables);
  await s.client.transactRaw(tables.map((table) => ({ op: 'delete' as const, table, where: [] })));
});

async function dslError(build: (t: NbTxn) => unknown): Promise<unknown> {
  return s.nb.transact(build).then(
    () => undefined,
    (e: unknown) => e,
  );
}

async function nbctlOk(...args: string[]): Promise<boolean> {
  return nbctl(s.server, ...args).then(
    () => true,
    () => false,
  );
}

describe('stricter checks than ovn-nbctl', () => {
  it('addresses are parsed whole: ovn-nbctl only checks that they start with a MAC', async () => {
    expect(
      await nbctlOk(
        'ls-add',
        'sw0',
        '--',
        'lsp-add',
        'sw0',
        'p1',
        '--',
        'lsp-set-addresses',
        'p1',
        '00:00:00:00:00:01 garbage',
      ),
    ).toBe(true);
    await s.nb.transact((t) => {
      lspSetAddresses(t, 'p1', []);
    });
    expect(
      await dslError((t) => lspSetAddresses(t, 'p1', ['00:00:00:00:00:01 garbage'])),
    ).toBeInstanceOf(InvalidAddressError);
  });

  it('DHCP options are checked: ovn-nbctl stores any key and value', async () => {
    await nbctl(s.server, 'dhcp-options-create', '10.0.0.0/24');
    const uuid = (
      await nbctl(s.server, '--bare', '--columns=_uuid', 'list', 'DHCP_Options')
    ).trim();
    expect(await nbctlOk('dhcp-options-set-options', uuid, 'lease_time=soon', 'bogus=1')).toBe(
      true,
    );
    expect(
      await dslError((t) =>
        dhcpOptionsCreate(t, '10.1.0.0/24', {
          server_id: '10.1.0.1',
          server_mac: '00:00:00:00:00:01',
          lease_time: 'soon' as never,
        }),
      ),
    ).toBeInstanceOf(InvalidDhcpOptionError);
  });

  it('the ACL direction must be spelled out: ovn-nbctl takes any word starting with t or f', async () => {
    expect(
      await nbctlOk('ls-add', 'sw0', '--', 'acl-add', 'sw0', 'toward', '100', 'ip4', 'drop'),
    ).toBe(true);
    expect(
      await dslError((t) =>
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'toward' as never, priority: 100, match: 'ip4', action: 'drop' },
        ),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('existence: one meaning for every create and delete', () => {
  it('deleting one named ACL, NAT rule or policy that does not exist is NotFoundError (ovn-nbctl succeeds silently)', async () => {
    await s.nb.transact((t) => {
      lsAdd(t, 'sw0');
      lrAdd(t, 'lr0');
    });
    expect(await nbctlOk('acl-del', 'sw0', 'to-lport', '100', 'ip4')).toBe(true);
    expect(await nbctlOk('lr-nat-del', 'lr0', 'snat', '10.0.0.0/24')).toBe(true);
    expect(await nbctlOk('lr-policy-del', 'lr0', '100', 'ip4')).toBe(true);
    expect(
      await dslError((t) =>
        aclDel(t, { switch: 'sw0' }, { direction: 'to-lport', priority: 100, match: 'ip4' }),
      ),
    ).toBeInstanceOf(NotFoundError);
    expect(
      await dslError((t) => lrNatDel(t, 'lr0', { type: 'snat', ip: '10.0.0.0/24' })),
    ).toBeInstanceOf(NotFoundError);
    expect(
      await dslError((t) => lrPolicyDel(t, 'lr0', { priority: 100, match: 'ip4' })),
    ).toBeInstanceOf(NotFoundError);
    // With ifExists, they do nothing, like ovn-nbctl.
    await s.nb.transact((t) => {
      aclDel(
        t,
        { switch: 'sw0' },
        { direction: 'to-lport', priority: 100, match: 'ip4' },
        { ifExists: true },
      );
      lrNatDel(t, 'lr0', { type: 'snat', ip: '10.0.0.0/24' }, { ifExists: true });
      lrPolicyDel(t, 'lr0', { priority: 100, match: 'ip4' }, { ifExists: true });
    });
  });

  it('creating a load balancer whose name exists is AlreadyExistsError (ovn-nbctl lb-add adds the VIP to it)', async () => {
    await nbctl(s.server, 'lb-add', 'lb0', '10.0.0.10', '10.0.0.5');
    expect(await nbctlOk('lb-add', 'lb0', '10.0.0.11', '10.0.0.6')).toBe(true);
    expect(
      (await nbctl(s.server, '--bare', '--columns=vips', 'list', 'Load_Balancer'))
        .trim()
        .split(' '),
    ).toHaveLength(2);
    expect(
      await dslError((t) => lbAdd(t, 'lb0', { vips: { '10.0.0.12': '10.0.0.7' } })),
    ).toBeInstanceOf(AlreadyExistsError);
  });

  it('a second DHCP_Options row with the same cidr and external_ids is AlreadyExistsError (ovn-nbctl makes a duplicate)', async () => {
    await nbctl(s.server, 'dhcp-options-create', '10.0.0.0/24', 'owner=x');
    expect(await nbctlOk('dhcp-options-create', '10.0.0.0/24', 'owner=x')).toBe(true);
    expect(
      (await nbctl(s.server, '--bare', '--columns=_uuid', 'list', 'DHCP_Options'))
        .trim()
        .split(/\s+/),
    ).toHaveLength(2);
    const options = { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 60 };
    expect(
      await dslError((t) =>
        dhcpOptionsCreate(t, '10.0.0.0/24', options, { externalIds: { owner: 'x' } }),
      ),
    ).toBeInstanceOf(AlreadyExistsError);
  });

  it('mayExist never hides a conflict: a stateless and a stateful NAT on one external IP (ovn-nbctl --may-exist returns silently)', async () => {
    await nbctl(
      s.server,
      'lr-add',
      'lr0',
      '--',
      '--stateless',
      'lr-nat-add',
      'lr0',
      'dnat_and_snat',
      '172.16.0.5',
      '10.0.0.5',
    );
    expect(
      await nbctlOk('--may-exist', 'lr-nat-add', 'lr0', 'dnat', '172.16.0.5', '10.0.0.6'),
    ).toBe(true);
    expect(
      await dslError((t) =>
        lrNatAdd(
          t,
          'lr0',
          { type: 'dnat', externalIp: '172.16.0.5', logicalIp: '10.0.0.6' },
          { mayExist: true },
        ),
      ),
    ).toBeInstanceOf(AlreadyExistsError);
  });

  it('a port that exists on another switch is a conflict for both', async () => {
    await nbctl(s.server, 'ls-add', 'sw0', '--', 'ls-add', 'sw1', '--', 'lsp-add', 'sw0', 'p1');
    expect(await nbctlOk('--may-exist', 'lsp-add', 'sw1', 'p1')).toBe(false);
    const e = await dslError((t) => lspAdd(t, 'sw1', 'p1', { mayExist: true }));
    expect(e).toBeInstanceOf(AlreadyExistsError);
    expect((e as AlreadyExistsError).detail).toBe('it exists in switch sw0');
  });
});
