/**
 * A real browser: Debian's Chromium (headless, driven by playwright-core)
 * loads the page of `examples/browser` (bundled with esbuild and served by
 * the bridge with `staticDir`), which connects through the bridge with the
 * token in the URL, reads an OVN Northbound database on a real ovsdb-server,
 * and lists switches and ports. The test compares the list with the
 * database, then adds a switch from Node and waits for the page to show it.
 */

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBrowserExample } from '../../examples/browser/build.js';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';

const CHROMIUM = '/usr/bin/chromium';
const NB = 'OVN_Northbound';
const TOKEN = 'browser-test-token-5d1e';

let server: OvsdbServerHandle;
let bridge: Bridge;
let browser: Browser;
let node: OvsdbConnection;
let dist: string;
let bundleBytes = 0;

/** Insert a switch with ports (a port must be referenced by its switch in the same transaction). */
function addSwitch(name: string, ports: readonly string[]): Operation[] {
  return [
    ...ports.map(
      (p, i): Operation => ({
        op: 'insert',
        table: 'Logical_Switch_Port',
        row: { name: p },
        'uuid-name': `p${i}`,
      }),
    ),
    {
      op: 'insert',
      table: 'Logical_Switch',
      row: { name, ports: ['set', ports.map((_, i) => ['named-uuid', `p${i}`])] },
    },
  ] as Operation[];
}

/** The database's switches and their port names, sorted, read over a plain unix connection. */
async function databaseView(): Promise<{ name: string; ports: string[] }[]> {
  const [switches, ports] = await node.transact(NB, [
    { op: 'select', table: 'Logical_Switch', where: [], columns: ['name', 'ports'] },
    { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid', 'name'] },
  ]);
  const portName = new Map<string, string>();
  for (const row of (ports as { rows: { _uuid: [string, string]; name: string }[] }).rows) {
    portName.set(row._uuid[1], row.name);
  }
  const asList = (v: unknown): [string, string][] => {
    const [tag, value] = v as [string, unknown];
    return tag === 'set' ? (value as [string, string][]) : [v as [string, string]];
  };
  return (switches as { rows: { name: string; ports: unknown }[] }).rows
    .map((sw) => ({
      name: sw.name,
      ports: asList(sw.ports)
        .map(([, uuid]) => portName.get(uuid) ?? '?')
        .sort(),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** What the page shows. */
function pageView(page: Page): Promise<{ name: string; ports: string[] }[]> {
  return page.$$eval('#switches > li', (items) =>
    items.map((li) => ({
      name: li.getAttribute('data-switch') ?? '',
      ports: [...li.querySelectorAll('li.port')].map((p) => p.getAttribute('data-port') ?? ''),
    })),
  );
}

beforeAll(async () => {
  requireOvsdbServer(true);
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)`);
  }
  dist = await mkdtemp(join(tmpdir(), 'ovnkit-browser-'));
  [{ bytes: bundleBytes }, server] = await Promise.all([
    buildBrowserExample(dist, ['ovnkit-source']),
    startOvsdbServer({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema', remotes: ['unix'] }),
  ]);
  node = await connect(server.unixRemote);
  await node.transact(NB, [...addSwitch('sw-a', ['a-1', 'a-2']), ...addSwitch('sw-b', [])]);
  await node.transact(NB, addSwitch('sw-c', ['c-1']));
  bridge = await startBridge({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    tokens: [TOKEN],
    policy: { allowDbs: [NB], readOnly: true },
    staticDir: dist,
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  node?.close();
  await bridge?.close();
  await server?.stop();
  if (dist) await rm(dist, { recursive: true, force: true });
});

describe('the browser example', () => {
  it('lists the switches and ports of the database, and updates live', async () => {
    expect(bundleBytes).toBeGreaterThan(0);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const origin = bridge.url.replace(/^ws:/, 'http:').replace(/\/ovsdb$/, '');
    await page.goto(`${origin}/#token=${TOKEN}`);
    await page.waitForSelector('#status[data-state="live"]', { timeout: 15_000 });

    const expected = await databaseView();
    expect(expected.map((s) => s.name)).toEqual(['sw-a', 'sw-b', 'sw-c']);
    expect(await pageView(page)).toEqual(expected);

    // A new switch (with a port) added from Node shows up without a reload.
    await node.transact(NB, addSwitch('sw-live', ['live-1', 'live-2']));
    await page.waitForSelector('#switches > li[data-switch="sw-live"] li[data-port="live-2"]', {
      timeout: 10_000,
    });
    expect(await pageView(page)).toEqual(await databaseView());
    // And a port added to an existing switch, too.
    await node.transact(NB, [
      { op: 'insert', table: 'Logical_Switch_Port', row: { name: 'b-1' }, 'uuid-name': 'nb1' },
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw-b']],
        mutations: [['ports', 'insert', ['set', [['named-uuid', 'nb1']]]]],
      },
    ] as Operation[]);
    await page.waitForSelector('li[data-switch="sw-b"] li[data-port="b-1"]', { timeout: 10_000 });
    expect(await pageView(page)).toEqual(await databaseView());
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('without the token, the page shows the bridge refusing it', async () => {
    const page = await browser.newPage();
    const origin = bridge.url.replace(/^ws:/, 'http:').replace(/\/ovsdb$/, '');
    await page.goto(`${origin}/`);
    await page.waitForSelector('#status[data-state="error"]', { timeout: 15_000 });
    const text = await page.textContent('#status');
    expect(text).toMatch(/1008/);
    expect(text).toMatch(/unauthorized: missing token/);
    expect(await page.$$('#switches > li')).toHaveLength(0);
    await page.close();
  }, 60_000);
});
