/**
 * CoPP, connections, TLS configuration and the redirect type: every bad
 * input fails with a typed error naming the argument and the value, before
 * any operation for it is added; and what the good ones write.
 */

import { describe, expect, it } from 'vitest';
import {
  checkConnectionTarget,
  delConnection,
  getConnection,
  getSsl,
  setConnection,
  setSsl,
} from '../../src/nb/connection-config.js';
import {
  COPP_PROTOCOLS,
  coppAdd,
  coppDel,
  coppList,
  lrCoppAdd,
  lsCoppAdd,
} from '../../src/nb/copp.js';
import { InvalidArgumentError, NotFoundError, OutOfRangeError } from '../../src/nb/errors.js';
import { lrAdd, lrpAdd, lsAdd, type NbTxn } from '../../src/nb/index.js';
import { lrpGetRedirectType, lrpSetRedirectType } from '../../src/nb/router-port.js';
import { dryOps, dryTxn } from './helpers/dry.js';

/** Run `f` on `t` and return what it throws (failing when it does not), checking that it added no operation. */
function thrown(t: NbTxn, f: (t: NbTxn) => unknown): Error {
  const before = t.tx.size;
  try {
    f(t);
  } catch (e) {
    expect(t.tx.size, 'no operation added by the failing call').toBe(before);
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('CoPP: typed errors', () => {
  it('a protocol ovn-nbctl 23.03 does not list is InvalidArgumentError naming Copp.meters and the value', () => {
    const t = dryTxn();
    coppAdd(t, 'copp0', 'arp', 'm1');
    for (const bad of ['dhcpv4-relay', 'ARP', '', 'icmp', 7]) {
      const e = thrown(t, (t) => coppAdd(t, 'copp0', bad as 'arp', 'm'));
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(e).toMatchObject({ field: 'Copp.meters', value: bad });
      expect(e.message).toContain('"svc-monitor"');
    }
    const e = thrown(t, (t) => coppDel(t, 'copp0', 'nd' as 'arp'));
    expect(e).toMatchObject({ name: 'InvalidArgumentError', field: 'Copp.meters', value: 'nd' });
  });

  it('an empty policy name or meter is InvalidArgumentError', () => {
    const t = dryTxn();
    expect(thrown(t, (t) => coppAdd(t, '', 'arp', 'm'))).toMatchObject({
      name: 'InvalidArgumentError',
      field: 'Copp.name',
      value: '',
    });
    expect(thrown(t, (t) => coppAdd(t, 'c', 'arp', ''))).toMatchObject({
      name: 'InvalidArgumentError',
      field: 'Copp.meters',
      value: '',
    });
  });

  it('an unknown policy or protocol to delete is NotFoundError (ifExists: nothing); an unknown policy to apply too', () => {
    const t = dryTxn();
    lsAdd(t, 'sw0');
    lrAdd(t, 'lr0');
    coppAdd(t, 'copp0', 'arp', 'm1');
    expect(thrown(t, (t) => coppDel(t, 'nope'))).toMatchObject({
      name: 'NotFoundError',
      kind: 'CoPP policy',
      key: 'nope',
    });
    expect(thrown(t, (t) => coppDel(t, 'copp0', 'dns'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => coppList(t, 'nope'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => lsCoppAdd(t, 'nope', 'sw0'))).toMatchObject({ kind: 'CoPP policy' });
    expect(thrown(t, (t) => lrCoppAdd(t, 'copp0', 'nolr'))).toMatchObject({
      kind: 'logical router',
    });
    const before = t.tx.size;
    coppDel(t, 'nope', undefined, { ifExists: true });
    coppDel(t, 'copp0', 'dns', { ifExists: true });
    expect(coppList(t, 'nope', { ifExists: true })).toEqual({});
    expect(t.tx.size).toBe(before);
  });

  it('the protocols are the 17 of ovn-nbctl 23.03; copp-add inserts, then sets one key; the last key deleted deletes the policy', () => {
    expect(COPP_PROTOCOLS).toHaveLength(17);
    const t = dryTxn();
    const uuid = coppAdd(t, 'copp0', 'arp', 'm1');
    expect(coppAdd(t, 'copp0', 'dns', 'm2')).toBe(uuid);
    expect(coppAdd(t, 'copp0', 'arp', 'm3')).toBe(uuid);
    expect(coppList(t, uuid)).toEqual({ arp: 'm3', dns: 'm2' });
    expect(Object.keys(coppList(t, 'copp0'))).toEqual(['arp', 'dns']);
    coppDel(t, 'copp0', 'arp');
    expect(coppList(t, 'copp0')).toEqual({ dns: 'm2' });
    coppDel(t, 'copp0', 'dns');
    expect(coppList(t, 'copp0', { ifExists: true })).toEqual({});
    const ops = t.tx.build().ops.map((o) => o.op);
    expect(ops).toEqual(['insert', 'mutate', 'mutate', 'mutate', 'delete']);
  });
});

describe('connections: typed errors', () => {
  it('accepts the targets of ovn-nbctl --help', () => {
    for (const target of [
      'ptcp:6641',
      'ptcp:6641:127.0.0.1',
      'ptcp:6641:[::1]',
      'ptcp:0',
      'pssl:6642:0.0.0.0',
      'punix:/var/run/ovn/ovnnb_db.sock',
      'tcp:192.0.2.1:6641',
      'tcp:ovn-central.example:6641',
      'ssl:[2001:db8::1]:6641',
      'unix:/tmp/nb.sock',
    ]) {
      expect(checkConnectionTarget(target)).toBe(target);
    }
  });

  it('refuses malformed targets, roles, repeats and no target with InvalidArgumentError naming Connection.target', () => {
    const t = dryTxn();
    for (const bad of [
      'bogus:1',
      'ptcp',
      'ptcp:',
      'ptcp:65536',
      'ptcp:66:300.1.1.1',
      'pssl:x',
      'tcp:192.0.2.1',
      'tcp:192.0.2.1:0',
      'tcp:bad_host:6641',
      'ssl:[2001:db8::1]',
      'ssl:[not-ip]:6641',
      'unix:',
      'punix:',
      'read-only',
      'read-write',
      '',
    ]) {
      const e = thrown(t, (t) => setConnection(t, [bad]));
      expect(e, bad).toBeInstanceOf(InvalidArgumentError);
      expect(e).toMatchObject({ field: 'Connection.target', value: bad });
    }
    expect(thrown(t, (t) => setConnection(t, ['read-only', 'ptcp:6641'])).message).toContain(
      'no role column',
    );
    expect(thrown(t, (t) => setConnection(t, []))).toMatchObject({
      name: 'InvalidArgumentError',
      field: 'Connection.target',
    });
    expect(thrown(t, (t) => setConnection(t, ['ptcp:1', 'ptcp:1']))).toMatchObject({
      name: 'InvalidArgumentError',
      value: 'ptcp:1',
    });
  });

  it('an inactivity probe outside 0..2147483647 is OutOfRangeError', () => {
    const t = dryTxn();
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN, '5000']) {
      const e = thrown(t, (t) =>
        setConnection(t, ['ptcp:6641'], { inactivityProbe: bad as number }),
      );
      expect(e).toBeInstanceOf(OutOfRangeError);
      expect(e).toMatchObject({ field: 'Connection.inactivity_probe', value: bad, min: 0 });
    }
  });

  it('set-connection replaces, del-connection empties, get-connection sorts', () => {
    const t = dryTxn();
    setConnection(t, ['ptcp:6641', 'pssl:6642'], { inactivityProbe: 0 });
    expect(getConnection(t)).toEqual(['pssl:6642', 'ptcp:6641']);
    setConnection(t, ['unix:/x']);
    expect(getConnection(t)).toEqual(['unix:/x']);
    delConnection(t);
    expect(getConnection(t)).toEqual([]);
    const size = t.tx.size;
    delConnection(t);
    expect(t.tx.size).toBe(size);
  });
});

describe('SSL: typed errors', () => {
  const good = { privateKey: '/k', certificate: '/c', caCert: '/ca' };

  it('an empty or non-string file is InvalidArgumentError naming the column', () => {
    const t = dryTxn();
    for (const [key, column] of [
      ['privateKey', 'SSL.private_key'],
      ['certificate', 'SSL.certificate'],
      ['caCert', 'SSL.ca_cert'],
    ] as const) {
      for (const bad of ['', 5, undefined, 'a\0b']) {
        const e = thrown(t, (t) => setSsl(t, { ...good, [key]: bad as string }));
        expect(e).toBeInstanceOf(InvalidArgumentError);
        expect(e).toMatchObject({ field: column, value: bad });
      }
    }
    expect(thrown(t, (t) => setSsl(t, null as never))).toMatchObject({ field: 'SSL' });
  });

  it('bad protocols, ciphers or bootstrap flag are InvalidArgumentError', () => {
    const t = dryTxn();
    for (const bad of ['SSLv3', 'TLSv1.4', 'TLSv1.2,tls1.3']) {
      expect(thrown(t, (t) => setSsl(t, { ...good, sslProtocols: bad }))).toMatchObject({
        name: 'InvalidArgumentError',
        field: 'SSL.ssl_protocols',
        value: bad,
      });
    }
    expect(thrown(t, (t) => setSsl(t, { ...good, sslCiphers: 3 as never }))).toMatchObject({
      field: 'SSL.ssl_ciphers',
    });
    expect(thrown(t, (t) => setSsl(t, { ...good, bootstrap: 'yes' as never }))).toMatchObject({
      field: 'SSL.bootstrap_ca_cert',
      value: 'yes',
    });
    setSsl(t, { ...good, sslProtocols: 'TLSv1.2, TLSv1.3', sslCiphers: 'HIGH' });
    expect(getSsl(t)).toEqual({
      ...good,
      bootstrap: false,
      sslProtocols: 'TLSv1.2, TLSv1.3',
      sslCiphers: 'HIGH',
    });
    setSsl(t, { ...good, sslProtocols: 'TLSv1.2+' });
    expect(getSsl(t)?.sslProtocols).toBe('TLSv1.2+');
  });
});

describe('lrp-set-redirect-type: typed errors', () => {
  it('a type other than overlay or bridged is InvalidArgumentError; an unknown port NotFoundError', () => {
    const t = dryTxn();
    lrAdd(t, 'lr0');
    lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24']);
    for (const bad of ['BRIDGED', 'vlan', '', null]) {
      expect(thrown(t, (t) => lrpSetRedirectType(t, 'lrp0', bad as 'bridged'))).toMatchObject({
        name: 'InvalidArgumentError',
        field: 'Logical_Router_Port.options:redirect-type',
        value: bad,
      });
    }
    expect(thrown(t, (t) => lrpSetRedirectType(t, 'nope', 'bridged'))).toBeInstanceOf(
      NotFoundError,
    );
    expect(lrpGetRedirectType(t, 'lrp0')).toBe('overlay');
    lrpSetRedirectType(t, 'lrp0', 'bridged');
    expect(lrpGetRedirectType(t, 'lrp0')).toBe('bridged');
    const size = t.tx.size;
    lrpSetRedirectType(t, 'lrp0', 'bridged');
    expect(t.tx.size, 'nothing written when it is already the type').toBe(size);
  });

  it('writes one mutate of the key', () => {
    const ops = dryOps((t) => {
      lrAdd(t, 'lr0');
      lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24']);
      lrpSetRedirectType(t, 'lrp0', 'bridged');
    });
    expect(ops.at(-1)).toMatchObject({
      op: 'mutate',
      table: 'Logical_Router_Port',
      mutations: [
        ['options', 'delete', ['set', ['redirect-type']]],
        ['options', 'insert', ['map', [['redirect-type', 'bridged']]]],
      ],
    });
  });
});
