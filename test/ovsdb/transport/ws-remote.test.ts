/**
 * WebSocket remotes: parsing `ws://`/`wss://` URLs and the OVSDB-style
 * `ws:<host>:<port>`, formatting, token redaction, `withToken`, and listen
 * addresses.
 */

import { describe, expect, it } from 'vitest';
import { listenUrl, parseListenAddress } from '../../../src/net/listen-address.js';
import {
  describeRemote,
  formatRemote,
  isWebSocketRemote,
  parseRemote,
  parseRemoteList,
  RemoteSyntaxError,
  redactUrlSecrets,
  type WebSocketRemote,
} from '../../../src/ovsdb/transport/remote.js';
import { withToken } from '../../../src/ovsdb/transport/ws-transport.js';

describe('parseRemote with ws: and wss:', () => {
  it.each<[string, WebSocketRemote]>([
    [
      'ws://127.0.0.1:8080/ovsdb',
      {
        kind: 'ws',
        url: 'ws://127.0.0.1:8080/ovsdb',
        host: '127.0.0.1',
        port: 8080,
        path: '/ovsdb',
      },
    ],
    [
      'wss://ovn.example.com/ovsdb?token=abc&x=1',
      {
        kind: 'wss',
        url: 'wss://ovn.example.com/ovsdb?token=abc&x=1',
        host: 'ovn.example.com',
        port: 443,
        path: '/ovsdb?token=abc&x=1',
      },
    ],
    ['ws://h', { kind: 'ws', url: 'ws://h/', host: 'h', port: 80, path: '/' }],
    ['ws://h:80/', { kind: 'ws', url: 'ws://h/', host: 'h', port: 80, path: '/' }],
    [
      'ws://h?token=t',
      { kind: 'ws', url: 'ws://h/?token=t', host: 'h', port: 80, path: '/?token=t' },
    ],
    [
      'wss://[::1]:9443/x',
      { kind: 'wss', url: 'wss://[::1]:9443/x', host: '::1', port: 9443, path: '/x' },
    ],
    [
      'ws:127.0.0.1:8080',
      { kind: 'ws', url: 'ws://127.0.0.1:8080/', host: '127.0.0.1', port: 8080, path: '/' },
    ],
    [
      'WSS:example.org',
      { kind: 'wss', url: 'wss://example.org/', host: 'example.org', port: 443, path: '/' },
    ],
  ])('parses %s', (text, expected) => {
    const r = parseRemote(text);
    expect(r).toEqual(expected);
    expect(formatRemote(r)).toBe(expected.url);
    // The canonical form parses to the same remote.
    expect(parseRemote(formatRemote(r))).toEqual(expected);
  });

  it.each<[string, RegExp]>([
    ['ws://', /needs a host/],
    ['ws://:80/x', /needs a host/],
    ['ws://user:pw@h/x', /user names and passwords/],
    ['ws://h/x#frag', /fragment/],
    ['ws://h/a b', /white space/],
    ['ws://h:0/', /port 0 is out of range/],
    ['ws://h:70000/', /out of range/],
    ['ws://::1/', /IPv6 address must be written in brackets/],
    ['ws:h:80/path', /a path needs the URL form/],
  ])('rejects %j', (text, reason) => {
    let caught: unknown;
    try {
      parseRemote(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RemoteSyntaxError);
    expect((caught as RemoteSyntaxError).reason).toMatch(reason);
  });

  it('a comma in a ws query is not a list separator for parseRemote', () => {
    expect(formatRemote(parseRemote('ws://h/x?dbs=a,b'))).toBe('ws://h/x?dbs=a,b');
  });

  it('remote lists may mix ws and socket remotes', () => {
    expect(parseRemoteList('ws://a:1/x, tcp:b:2').remotes.map((r) => r.kind)).toEqual([
      'ws',
      'tcp',
    ]);
  });

  it('isWebSocketRemote tells ws remotes apart', () => {
    expect(isWebSocketRemote('ws://h/')).toBe(true);
    expect(isWebSocketRemote(' WSS:h')).toBe(true);
    expect(isWebSocketRemote('tcp:h:1')).toBe(false);
    expect(isWebSocketRemote(parseRemote('wss://h/'))).toBe(true);
    expect(isWebSocketRemote(parseRemote('unix:/x'))).toBe(false);
  });
});

describe('secrets in URLs', () => {
  it('describeRemote hides token and access_token values', () => {
    expect(describeRemote(parseRemote('ws://h:1/o?token=s3cret&x=1'))).toBe(
      'ws://h:1/o?token=***&x=1',
    );
    expect(describeRemote(parseRemote('wss://h/o?a=1&access_token=zz'))).toBe(
      'wss://h/o?a=1&access_token=***',
    );
    expect(describeRemote(parseRemote('tcp:h:1'))).toBe('tcp:h:1');
    expect(redactUrlSecrets('ws://h/?Token=abc')).toBe('ws://h/?Token=***');
  });

  it('withToken sets (or replaces) the token query parameter, encoded', () => {
    expect(withToken('ws://h/ovsdb', 'a b&c')).toBe('ws://h/ovsdb?token=a%20b%26c');
    expect(withToken('ws://h/ovsdb?x=1&token=old', 'new')).toBe('ws://h/ovsdb?x=1&token=new');
    expect(withToken('ws://h/ovsdb?#f', 't')).toBe('ws://h/ovsdb?token=t');
  });
});

describe('parseListenAddress', () => {
  it.each([
    ['ws://127.0.0.1:8080/ovsdb', { kind: 'ws', host: '127.0.0.1', port: 8080, path: '/ovsdb' }],
    ['ws:127.0.0.1:0', { kind: 'ws', host: '127.0.0.1', port: 0, path: '/' }],
    ['wss://[::1]:0', { kind: 'wss', host: '::1', port: 0, path: '/' }],
    ['ws://0.0.0.0', { kind: 'ws', host: '0.0.0.0', port: 80, path: '/' }],
  ])('parses %s', (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each(['tcp:127.0.0.1:1', 'ws://h:99999', 'ws://h/x?y', 'ws://'])('rejects %j', (text) => {
    expect(() => parseListenAddress(text)).toThrow(RemoteSyntaxError);
  });

  it('listenUrl names a wildcard address by its loopback', () => {
    expect(listenUrl(parseListenAddress('ws://0.0.0.0:0/x'), 1234)).toBe('ws://127.0.0.1:1234/x');
    expect(listenUrl(parseListenAddress('wss://[::]:0'), 1)).toBe('wss://[::1]:1/');
  });
});
