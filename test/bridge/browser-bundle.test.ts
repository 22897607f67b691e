/**
 * The browser entry (`src/browser.ts`, published as `ovnkit/browser`) and the
 * WebSocket transport bundle for browsers: esbuild with `platform: 'browser'`
 * fails on any Node built-in, so a Node-only import anywhere below them fails
 * this test. The Node entry, by contrast, does not bundle for browsers.
 */

import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

async function bundle(entry: string) {
  return build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'silent',
  });
}

describe('browser bundles', () => {
  it.each([
    'src/browser.ts',
    'src/ovsdb/transport/ws-transport.ts',
    'src/ovsdb/connection/connection.ts',
  ])('%s bundles for browsers without Node modules', async (entry) => {
    const result = await bundle(entry);
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((f) =>
        /socket-transport|connection\/connect\.ts|connect-ws|dial-node|tls-files|unix-path|tcp-state|bridge\//.test(
          f,
        ),
      ),
    ).toEqual([]);
    const text = result.outputFiles[0]?.text ?? '';
    expect(text).not.toMatch(/from ["']node:|require\(["']node:/);
    expect(text).not.toMatch(/from ["']ws["']/);
  });

  it('the browser entry exports connect and the connection layers', async () => {
    const mod = await import('../../src/browser.js');
    for (const name of [
      'connect',
      'OvsdbConnection',
      'JsonRpcPeer',
      'WebSocketTransport',
      'openWebSocketTransport',
      'withToken',
      'parseSchema',
      'compileRowCodec',
      'applyRowUpdate2',
      'Replica',
      'parseRemote',
    ]) {
      expect([name, typeof (mod as Record<string, unknown>)[name]]).toEqual([name, 'function']);
    }
  });

  it('the browser connect refuses socket remotes and needs a WebSocket', async () => {
    const { connect } = await import('../../src/browser.js');
    await expect(connect('tcp:127.0.0.1:6641')).rejects.toThrow(/cannot be opened in a browser/);
    const g = globalThis as { WebSocket?: unknown };
    const saved = g.WebSocket;
    g.WebSocket = undefined;
    try {
      await expect(connect('ws://127.0.0.1:1/')).rejects.toThrow(/there is no global WebSocket/);
    } finally {
      g.WebSocket = saved;
    }
  });

  it('the Node entry does not bundle for browsers (it needs node:net)', async () => {
    const err = await bundle('src/ovsdb/connection/connect.ts').catch((e: unknown) => e);
    expect(String(err)).toMatch(/Could not resolve "node:net"/);
  });
});
