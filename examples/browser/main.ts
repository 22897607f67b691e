/**
 * A minimal browser page: it connects to an `ovnkit bridge` (the page is
 * served by the bridge itself with `--static`, so the WebSocket is on the same
 * host), reads the OVN Northbound database, and lists the logical switches
 * with their ports, updated live from `monitor_cond` notifications.
 *
 * Open it as `http://<bridge>/#token=<token>`: the fragment is never sent to
 * a server, and the page passes the token to the bridge in the WebSocket
 * URL's query (browsers cannot set an Authorization header on a WebSocket).
 */

import {
  applyRowUpdate2,
  compileRowCodec,
  connect,
  parseSchema,
  type Row,
  type RowCodec,
  type TableUpdates2,
} from 'ovnkit/browser';

const DB = 'OVN_Northbound';

/** The few DOM members this page uses (the project compiles without the DOM library). */
interface PageElement {
  textContent: string | null;
  className: string;
  append(...nodes: (PageElement | string)[]): void;
  replaceChildren(...nodes: PageElement[]): void;
  setAttribute(name: string, value: string): void;
}
interface PageGlobals {
  readonly document: {
    getElementById(id: string): PageElement | null;
    createElement(tag: string): PageElement;
  };
  readonly location: { readonly host: string; readonly hash: string; readonly protocol: string };
}

const { document, location } = globalThis as unknown as PageGlobals;

function element(id: string): PageElement {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`the page has no #${id}`);
  return e;
}

const statusLine = element('status');
const list = element('switches');

function setStatus(state: 'connecting' | 'live' | 'error', text: string): void {
  statusLine.setAttribute('data-state', state);
  statusLine.textContent = text;
}

/** One monitored table: its rows by UUID, kept with the library's update2 semantics. */
class Table {
  readonly rows = new Map<string, Row>();
  constructor(readonly codec: RowCodec) {}

  apply(changes: TableUpdates2[string] | undefined): void {
    for (const [uuid, change] of Object.entries(changes ?? {})) {
      const row = applyRowUpdate2(this.codec, uuid, this.rows.get(uuid), change);
      if (row === undefined) this.rows.delete(uuid);
      else this.rows.set(uuid, row);
    }
  }
}

function render(switches: Table, ports: Table): void {
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const items = [...switches.rows.values()]
    .map((sw) => ({
      name: String(sw['name']),
      ports: (sw['ports'] as readonly string[])
        .map((uuid) => ports.rows.get(uuid)?.['name'])
        .filter((name): name is string => typeof name === 'string')
        .sort(byName),
    }))
    .sort((a, b) => byName(a.name, b.name));
  list.replaceChildren(
    ...items.map((sw) => {
      const li = document.createElement('li');
      li.setAttribute('data-switch', sw.name);
      const name = document.createElement('span');
      name.className = 'switch-name';
      name.textContent = sw.name;
      const ul = document.createElement('ul');
      ul.replaceChildren(
        ...sw.ports.map((p) => {
          const port = document.createElement('li');
          port.className = 'port';
          port.setAttribute('data-port', p);
          port.textContent = p;
          return port;
        }),
      );
      li.append(name, ` (${sw.ports.length} ports)`, ul);
      return li;
    }),
  );
}

async function main(): Promise<void> {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const conn = await connect(`${scheme}://${location.host}/ovsdb`, { token, timeoutMs: 10_000 });
  conn.on('close', (error) =>
    setStatus('error', `disconnected${error ? `: ${error.message}` : ''}`),
  );

  const schema = parseSchema(await conn.getSchema(DB));
  const lsSchema = schema.tables['Logical_Switch'];
  const lspSchema = schema.tables['Logical_Switch_Port'];
  if (!lsSchema || !lspSchema)
    throw new Error(`${DB} has no Logical_Switch or Logical_Switch_Port`);
  const switches = new Table(compileRowCodec(lsSchema, ['name', 'ports']));
  const ports = new Table(compileRowCodec(lspSchema, ['name']));

  const apply = (updates: TableUpdates2): void => {
    switches.apply(updates['Logical_Switch']);
    ports.apply(updates['Logical_Switch_Port']);
    render(switches, ports);
  };
  conn.on('update2', (_id, updates) => apply(updates));
  apply(
    await conn.monitorCond(DB, 'switches', {
      Logical_Switch: { columns: ['name', 'ports'] },
      Logical_Switch_Port: { columns: ['name'] },
    }),
  );
  setStatus('live', `live: ${switches.rows.size} switches, ${ports.rows.size} ports`);
  conn.on('update2', () =>
    setStatus('live', `live: ${switches.rows.size} switches, ${ports.rows.size} ports`),
  );
}

main().catch((e: unknown) => setStatus('error', e instanceof Error ? e.message : String(e)));
