import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OVSDB_PORT,
  formatRemote,
  type PassiveRemote,
  parsePassiveRemote,
  parseRemote,
  parseRemoteList,
  type Remote,
  RemoteSyntaxError,
} from '../../../src/ovsdb/transport/remote.js';

describe('parseRemote', () => {
  it.each<[string, Remote]>([
    ['tcp:127.0.0.1:6641', { kind: 'tcp', host: '127.0.0.1', port: 6641 }],
    [
      'ssl:ovn-central.example.com:6642',
      { kind: 'ssl', host: 'ovn-central.example.com', port: 6642 },
    ],
    ['tcp:[::1]:6641', { kind: 'tcp', host: '::1', port: 6641 }],
    ['ssl:[fe80::1234%eth0]:6653', { kind: 'ssl', host: 'fe80::1234%eth0', port: 6653 }],
    ['tcp:10.0.0.1', { kind: 'tcp', host: '10.0.0.1', port: 6640 }],
    ['ssl:[::1]', { kind: 'ssl', host: '::1', port: 6640 }],
    ['TCP:localhost:1', { kind: 'tcp', host: 'localhost', port: 1 }],
    ['  tcp:localhost:65535 ', { kind: 'tcp', host: 'localhost', port: 65535 }],
    ['unix:/var/run/ovn/ovnnb_db.sock', { kind: 'unix', path: '/var/run/ovn/ovnnb_db.sock' }],
    ['unix:relative/db.sock', { kind: 'unix', path: 'relative/db.sock' }],
  ])('parses %s', (text, expected) => {
    expect(parseRemote(text)).toEqual(expected);
  });

  it('uses 6640 as the default port', () => {
    expect(DEFAULT_OVSDB_PORT).toBe(6640);
  });

  it.each<[string, RegExp]>([
    ['', /no method prefix/],
    ['127.0.0.1:6640', /unknown method "127.0.0.1:"/],
    ['/tmp/db.sock', /no method prefix/],
    ['tcp:', /needs a host/],
    ['tcp::6640', /needs a host/],
    ['ssl:host:0', /port 0 is out of range 1-65535/],
    ['tcp:host:65536', /port 65536 is out of range/],
    ['tcp:host:66a', /"66a" is not a port number/],
    ['tcp:host:', /"" is not a port number/],
    ['tcp:::1:6640', /IPv6 address must be written in brackets/],
    ['tcp:[::1:6640', /unterminated "\["/],
    ['tcp:[::1]6640', /unexpected "6640" after the IPv6 address/],
    ['tcp:[10.0.0.1]:6640', /"10.0.0.1" is not an IPv6 address/],
    ['tcp:bad host:6640', /"bad host" is not a host name/],
    ['unix:', /unix: needs a socket file path/],
    ['ws:', /ws: needs a host/],
    ['wss://user:pw@example.com/ovsdb', /user names and passwords/],
    ['ptcp:6640', /passive \(listening\) method/],
    ['punix:/tmp/x.sock', /passive \(listening\) method/],
    ['udp:127.0.0.1:6640', /unknown method "udp:"/],
    ['tcp:a:1,tcp:b:2', /parseRemoteList/],
  ])('rejects %j', (text, reason) => {
    let caught: unknown;
    try {
      parseRemote(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RemoteSyntaxError);
    const err = caught as RemoteSyntaxError;
    expect(err.remote).toBe(text);
    expect(err.reason).toMatch(reason);
    expect(err.message).toContain(JSON.stringify(text));
  });
});

describe('parsePassiveRemote', () => {
  it.each<[string, PassiveRemote]>([
    ['ptcp:6641', { kind: 'ptcp', port: 6641 }],
    ['ptcp:6641:127.0.0.1', { kind: 'ptcp', port: 6641, host: '127.0.0.1' }],
    ['pssl:', { kind: 'pssl', port: 6640 }],
    ['pssl:0:127.0.0.1', { kind: 'pssl', port: 0, host: '127.0.0.1' }],
    ['pssl:6640:[::]', { kind: 'pssl', port: 6640, host: '::' }],
    ['ptcp::[::1]', { kind: 'ptcp', port: 6640, host: '::1' }],
    ['punix:/tmp/db.sock', { kind: 'punix', path: '/tmp/db.sock' }],
  ])('parses %s', (text, expected) => {
    expect(parsePassiveRemote(text)).toEqual(expected);
  });

  it.each<[string, RegExp]>([
    ['tcp:127.0.0.1:6640', /active method/],
    ['unix:/tmp/x.sock', /active method/],
    ['pfd:3', /pfd: .* not supported/],
    ['ptcp:99999', /out of range 0-65535/],
    ['ptcp:6640:::1', /IPv6 address must be written in brackets/],
    ['ptcp:x', /"x" is not a port number/],
    ['punix:', /needs a socket file path/],
    ['6640', /no method prefix/],
    ['pws:1', /unknown method "pws:"/],
  ])('rejects %j', (text, reason) => {
    expect(() => parsePassiveRemote(text)).toThrow(RemoteSyntaxError);
    expect(() => parsePassiveRemote(text)).toThrow(reason);
  });
});

describe('parseRemoteList', () => {
  it('splits on commas with optional spaces and keeps the order', () => {
    expect(parseRemoteList('tcp:10.0.0.1:6641, ssl:[::1]:6641 ,unix:/x.sock')).toEqual({
      remotes: [
        { kind: 'tcp', host: '10.0.0.1', port: 6641 },
        { kind: 'ssl', host: '::1', port: 6641 },
        { kind: 'unix', path: '/x.sock' },
      ],
    });
  });

  it('takes the cluster ID from a cid: member', () => {
    const list = parseRemoteList(
      'cid:0E4B2F1C-9d3a-4b7e-8f00-123456789abc,tcp:127.0.0.1:6641,tcp:127.0.0.1:6643',
    );
    expect(list.cid).toBe('0e4b2f1c-9d3a-4b7e-8f00-123456789abc');
    expect(list.remotes.map((r) => formatRemote(r))).toEqual([
      'tcp:127.0.0.1:6641',
      'tcp:127.0.0.1:6643',
    ]);
  });

  it('accepts a single remote', () => {
    expect(parseRemoteList('unix:/a.sock').remotes).toEqual([{ kind: 'unix', path: '/a.sock' }]);
  });

  it.each<[string, RegExp]>([
    ['', /empty member/],
    ['tcp:a:1,,tcp:b:2', /empty member/],
    ['cid:0e4b2f1c-9d3a-4b7e-8f00-123456789abc', /names no server/],
    ['cid:nope,tcp:a:1', /cid: needs a UUID/],
    [
      'cid:0e4b2f1c-9d3a-4b7e-8f00-123456789abc,cid:0e4b2f1c-9d3a-4b7e-8f00-123456789abc,tcp:a:1',
      /more than one cid/,
    ],
    ['tcp:a:1,ptcp:2', /passive/],
  ])('rejects %j', (text, reason) => {
    expect(() => parseRemoteList(text)).toThrow(reason);
  });
});

describe('formatRemote', () => {
  it.each<[Remote | PassiveRemote, string]>([
    [{ kind: 'tcp', host: '127.0.0.1', port: 6640 }, 'tcp:127.0.0.1:6640'],
    [{ kind: 'ssl', host: '::1', port: 6641 }, 'ssl:[::1]:6641'],
    [{ kind: 'unix', path: '/x.sock' }, 'unix:/x.sock'],
    [{ kind: 'ptcp', port: 0 }, 'ptcp:0'],
    [{ kind: 'pssl', port: 6640, host: '::' }, 'pssl:6640:[::]'],
    [{ kind: 'punix', path: '/y.sock' }, 'punix:/y.sock'],
  ])('formats %j as %s', (remote, text) => {
    expect(formatRemote(remote)).toBe(text);
  });

  it('round-trips through the parsers', () => {
    const ipv4 = fc
      .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
      .map((p) => p.join('.'));
    const ipv6 = fc.ipV6();
    const name = fc.domain();
    const host = fc.oneof(ipv4, ipv6, name);
    const active = fc.record({
      kind: fc.constantFrom<'tcp' | 'ssl'>('tcp', 'ssl'),
      host,
      port: fc.integer({ min: 1, max: 65535 }),
    });
    fc.assert(
      fc.property(active, (r) => {
        expect(parseRemote(formatRemote(r))).toEqual(r);
      }),
    );
    const passive = fc.record({
      kind: fc.constantFrom<'ptcp' | 'pssl'>('ptcp', 'pssl'),
      port: fc.integer({ min: 0, max: 65535 }),
      host: fc.oneof(ipv4, ipv6),
    });
    fc.assert(
      fc.property(passive, (r) => {
        expect(parsePassiveRemote(formatRemote(r))).toEqual(r);
      }),
    );
  });
});
