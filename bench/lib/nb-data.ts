/**
 * The rows the workloads write and the raw requests that write them: port
 * `i` has a unique name, MAC and IP, one address and one port-security
 * entry. Also the untimed setup (the switch) and verification (row counts)
 * every sample ends with.
 * @module
 */

import { RawClient } from './raw-client.js';

/** The database name. */
export const DB = 'OVN_Northbound';
/** The switch every W1/W2 port is added to. */
export const SWITCH = 'sw0';

/** Port `i`'s MAC and IP, as in `addresses`/`port_security`: `"0a:00:… 10.…"`. */
export function portAddress(i: number): string {
  const b = [(i >> 16) & 255, (i >> 8) & 255, i & 255];
  const mac = `0a:00:${b.map((x) => x.toString(16).padStart(2, '0')).join(':')}:01`;
  return `${mac} 10.${b[0]}.${b[1]}.${b[2]}`;
}

/** Port `i`'s name. */
export function portName(i: number): string {
  return `lsp-${i}`;
}

/** The wire `insert` of port `i`. */
export function lspInsertOp(i: number, uuidName: string): Record<string, unknown> {
  const a = portAddress(i);
  return {
    op: 'insert',
    table: 'Logical_Switch_Port',
    row: { name: portName(i), addresses: ['set', [a]], port_security: ['set', [a]] },
    'uuid-name': uuidName,
  };
}

/** The wire `mutate` adding `refs` (wire UUIDs) to the switch's `ports`. */
export function addPortsOp(refs: readonly unknown[]): Record<string, unknown> {
  return {
    op: 'mutate',
    table: 'Logical_Switch',
    where: [['name', '==', SWITCH]],
    mutations: [['ports', 'insert', refs.length === 1 ? refs[0] : ['set', refs]]],
  };
}

/** The operations of one W1 transaction (port `i`). */
export function singlePortOps(i: number): Record<string, unknown>[] {
  return [lspInsertOp(i, 'p'), addPortsOp([['named-uuid', 'p']])];
}

/** The operations of one W2 transaction (ports `start` … `start + count - 1`). */
export function batchOps(start: number, count: number): Record<string, unknown>[] {
  const ops: Record<string, unknown>[] = [];
  const refs: unknown[] = [];
  for (let i = start; i < start + count; i++) {
    ops.push(lspInsertOp(i, `p${i}`));
    refs.push(['named-uuid', `p${i}`]);
  }
  ops.push(addPortsOp(refs));
  return ops;
}

/** A serialized `transact` request. */
export function transactText(ops: readonly unknown[], id: number | string): string {
  return JSON.stringify({ method: 'transact', params: [DB, ...ops], id });
}

/** Insert the switch (untimed setup). */
export async function createSwitch(c: RawClient): Promise<void> {
  const r = (await c.request('transact', [
    DB,
    { op: 'insert', table: 'Logical_Switch', row: { name: SWITCH } },
  ])) as { error?: string }[];
  if (r[0]?.error) throw new Error(`creating ${SWITCH} failed: ${JSON.stringify(r)}`);
}

/**
 * Check that the database holds exactly `ports` ports and that `sw0` lists
 * them all; throws otherwise (a broken workload must not report a number).
 */
export async function verifyPorts(c: RawClient, ports: number, what: string): Promise<void> {
  const r = (await c.request('transact', [
    DB,
    { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid'] },
    { op: 'select', table: 'Logical_Switch', where: [['name', '==', SWITCH]], columns: ['ports'] },
  ])) as [{ rows?: unknown[] }, { rows?: { ports: unknown }[] }];
  const lsp = r[0].rows?.length ?? -1;
  const ref = r[1].rows?.[0]?.ports;
  const listed = Array.isArray(ref) && ref[0] === 'set' ? (ref[1] as unknown[]).length : 1;
  if (lsp !== ports || listed !== ports) {
    throw new Error(
      `${what}: expected ${ports} ports in Logical_Switch_Port and in ${SWITCH}.ports, ` +
        `found ${lsp} and ${listed}`,
    );
  }
}

/**
 * Fill the database with `ports` ports, `perSwitch` per switch (`ls-<k>`),
 * each port also carrying two `external_ids` keys and one option; the
 * requests are pipelined. Untimed setup for W3/W4. Checks the count.
 */
export async function populatePorts(c: RawClient, ports: number, perSwitch = 1000): Promise<void> {
  const requests: string[] = [];
  for (let sw = 0; sw * perSwitch < ports; sw++) {
    const ops: Record<string, unknown>[] = [];
    const refs: unknown[] = [];
    for (let i = sw * perSwitch; i < Math.min(ports, (sw + 1) * perSwitch); i++) {
      const op = lspInsertOp(i, `p${i}`);
      const row = op['row'] as Record<string, unknown>;
      row['external_ids'] = [
        'map',
        [
          ['pod', `ns${sw}/pod-${i}`],
          ['k8s.ovn.org/nad', 'default'],
        ],
      ];
      row['options'] = ['map', [['requested-chassis', `node-${i % 50}`]]];
      ops.push(op);
      refs.push(['named-uuid', `p${i}`]);
    }
    ops.push({
      op: 'insert',
      table: 'Logical_Switch',
      row: { name: `ls-${sw}`, ports: ['set', refs] },
    });
    requests.push(transactText(ops, `populate-${sw}`));
  }
  const base = c.count;
  for (const r of requests) c.write(r);
  await c.until(base + requests.length);
  const r = (await c.request('transact', [
    DB,
    { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid'] },
  ])) as [{ rows?: unknown[] }];
  const n = r[0].rows?.length ?? -1;
  if (n !== ports) throw new Error(`populating: expected ${ports} ports, the database has ${n}`);
}

/** A raw client on `socketPath` with the switch created; it verifies the ports afterwards. */
export async function openWithSwitch(socketPath: string): Promise<RawClient> {
  const c = await RawClient.open(socketPath);
  await createSwitch(c);
  return c;
}

/** Verify the port count, close the raw client, and return ports per second. */
export async function finishPorts(
  c: RawClient,
  n: number,
  ms: number,
  what: string,
): Promise<number> {
  try {
    await verifyPorts(c, n, what);
  } finally {
    c.close();
  }
  return (n / ms) * 1000;
}
