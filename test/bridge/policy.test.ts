/**
 * The bridge's policy and token checks as plain functions: database and
 * method allowlists, read-only `transact`, token matching and token files.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BridgePolicy, KNOWN_METHODS, READ_ONLY_METHODS } from '../../src/bridge/policy.js';
import {
  isLoopbackHost,
  presentedToken,
  readTokenFile,
  TokenAuthenticator,
} from '../../src/net/auth.js';

describe('BridgePolicy', () => {
  it('an open policy lets every method through, unknown ones included', () => {
    const p = new BridgePolicy();
    expect(p.isOpen).toBe(true);
    expect(p.check('transact', ['Any', { op: 'delete', table: 'T', where: [] }])).toEqual({
      allowed: true,
    });
    expect(p.check('something_new', [])).toEqual({ allowed: true });
  });

  it('checks the database of every method that names one', () => {
    const p = new BridgePolicy({ allowDbs: ['OVN_Northbound'] });
    const dbMethods = Object.entries(KNOWN_METHODS)
      .filter(([, at]) => at >= 0)
      .map(([m]) => m);
    expect(dbMethods.sort()).toEqual(
      ['convert', 'get_schema', 'monitor', 'monitor_cond', 'monitor_cond_since', 'transact'].sort(),
    );
    for (const m of dbMethods) {
      expect(p.check(m, ['OVN_Northbound'])).toEqual({ allowed: true });
      expect(p.check(m, ['OVN_Southbound'])).toEqual({
        allowed: false,
        details: `${m}: database "OVN_Southbound" is not allowed by this bridge`,
      });
      expect(p.check(m, [])).toEqual({
        allowed: false,
        details: `${m}: params[0] must name a database`,
      });
    }
    expect(p.check('monitor_cancel', ['x'])).toEqual({ allowed: true });
    expect(p.check('unknown_method', ['OVN_Northbound'])).toEqual({
      allowed: false,
      details: 'method "unknown_method" is not forwarded by this bridge',
    });
    expect(p.allowsDatabase('OVN_Northbound')).toBe(true);
    expect(p.allowsDatabase('_Server')).toBe(false);
  });

  it('read-only allows exactly the reading methods', () => {
    const p = new BridgePolicy({ readOnly: true });
    for (const m of Object.keys(KNOWN_METHODS)) {
      const allowed = p.check(m, ['Db']).allowed;
      expect([m, allowed]).toEqual([m, READ_ONLY_METHODS.includes(m)]);
    }
  });

  it('read-only transact: select, wait and comment only, every operation checked', () => {
    const p = new BridgePolicy({ readOnly: true });
    const ok = p.check('transact', [
      'Db',
      { op: 'select', table: 'T', where: [] },
      { op: 'wait', table: 'T', where: [], columns: [], until: '==', rows: [] },
      { op: 'comment', comment: 'x' },
    ]);
    expect(ok).toEqual({ allowed: true });
    expect(p.check('transact', ['Db'])).toEqual({ allowed: true });
    for (const op of ['insert', 'update', 'mutate', 'delete', 'commit', 'abort', 'assert']) {
      expect(p.check('transact', ['Db', { op: 'select' }, { op }])).toEqual({
        allowed: false,
        details: `read-only bridge: transact operation 1 is "${op}"; only select, wait and comment are allowed`,
        operation: 1,
      });
    }
    for (const bad of [null, 'select', ['select'], { table: 'T' }, { op: 7 }]) {
      expect(p.check('transact', ['Db', bad])).toEqual({
        allowed: false,
        details: 'read-only bridge: transact operation 0 has no "op" name',
        operation: 0,
      });
    }
  });

  it('the method allowlist keeps echo and cancel, and rejects unknown names', () => {
    const p = new BridgePolicy({ allowMethods: ['list_dbs'] });
    expect(p.check('echo', []).allowed).toBe(true);
    expect(p.check('cancel', [1]).allowed).toBe(true);
    expect(p.check('get_schema', ['Db']).allowed).toBe(false);
    expect(() => new BridgePolicy({ allowMethods: ['nope'] })).toThrow(/unknown method "nope"/);
    expect(() => new BridgePolicy({ allowMethods: [] })).toThrow(/empty/);
    expect(() => new BridgePolicy({ allowDbs: [] })).toThrow(/empty/);
  });

  it('read-only and an allowlist combine', () => {
    const p = new BridgePolicy({ allowMethods: ['transact', 'lock'], readOnly: true });
    expect(p.check('lock', ['l'])).toEqual({
      allowed: false,
      details: 'read-only bridge: method "lock" is not allowed',
    });
    expect(p.check('transact', ['Db', { op: 'insert' }]).allowed).toBe(false);
    expect(p.check('transact', ['Db', { op: 'select' }]).allowed).toBe(true);
  });
});

function request(headers: Record<string, string>, url = '/ovsdb'): IncomingMessage {
  return { headers, url } as unknown as IncomingMessage;
}

describe('tokens', () => {
  it('takes the token from the Authorization header first, then the query', () => {
    expect(presentedToken(request({ authorization: 'Bearer abc' }, '/x?token=q'))).toEqual({
      token: 'abc',
      source: 'header',
    });
    expect(presentedToken(request({ authorization: 'bearer   abc  ' }))).toEqual({
      token: 'abc',
      source: 'header',
    });
    expect(presentedToken(request({}, '/x?a=1&token=q%20r'))).toEqual({
      token: 'q r',
      source: 'query',
    });
    expect(presentedToken(request({}, '/x?a=1'))).toBeUndefined();
    expect(presentedToken(request({ authorization: 'Basic abc' }))).toEqual({
      token: '',
      source: 'header',
    });
  });

  it('matches only an exact accepted token', () => {
    const auth = new TokenAuthenticator(['alpha', 'beta-2']);
    expect(auth.matches('alpha')).toBe(true);
    expect(auth.matches('beta-2')).toBe(true);
    for (const t of ['', 'alph', 'alphaa', 'ALPHA', 'beta', 'alpha\n'])
      expect(auth.matches(t)).toBe(false);
    expect(auth.authenticate(request({}))).toEqual({ ok: false, reason: 'missing token' });
    expect(auth.authenticate(request({}, '/?token=beta-2'))).toEqual({ ok: true, source: 'query' });
    expect(auth.authenticate(request({ authorization: 'Bearer x' }))).toEqual({
      ok: false,
      reason: 'invalid token',
    });
    expect(new TokenAuthenticator(undefined).authenticate(request({}))).toEqual({
      ok: true,
      source: 'none',
    });
    expect(() => new TokenAuthenticator([])).toThrow(/no token/);
    expect(() => new TokenAuthenticator([''])).toThrow(/empty/);
  });

  it('reads token files: one per line, comments and blanks skipped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ovnkit-tokens-'));
    try {
      const file = join(dir, 'tokens');
      await writeFile(file, '# bridge tokens\n\n  first  \r\nsecond\n');
      expect(await readTokenFile(file)).toEqual(['first', 'second']);
      await writeFile(file, '# none\n\n');
      await expect(readTokenFile(file)).rejects.toThrow(/holds no token/);
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', 'localhost', 'LOCALHOST']) {
      expect([h, isLoopbackHost(h)]).toEqual([h, true]);
    }
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', '::2']) {
      expect([h, isLoopbackHost(h)]).toEqual([h, false]);
    }
  });
});
