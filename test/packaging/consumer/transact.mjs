// A plain JavaScript ESM consumer of the packed package: start a server
// (`real`: ovsdb-server; `memory`: the in-memory one) with the NB schema the
// package ships, commit a transaction through the NB DSL, read it back over a
// second, raw connection, and print what it saw as JSON.
import { connect } from 'ovnkit';
import { connectDatabase } from 'ovnkit/client';
import { createNb, lsAdd, lspAdd, NB } from 'ovnkit/nb';
import { startMemoryServer, startOvsdbServer } from 'ovnkit/testing';

const kind = process.argv[2];
const start = kind === 'real' ? startOvsdbServer : startMemoryServer;
const server = await start({ schema: NB.schema });
try {
  const client = connectDatabase({ remotes: server.unixRemote, model: NB });
  await client.ready;
  const nb = createNb(client);
  const { value: port } = await nb.transact((t) => lspAdd(t, lsAdd(t, 'sw0'), 'sw0-p1'));
  await client.close();

  const conn = await connect(server.unixRemote);
  const [{ rows }] = await conn.transact('OVN_Northbound', [
    { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid', 'name'] },
  ]);
  const dbs = await conn.listDbs();
  conn.close();
  console.log(JSON.stringify({ port, rows, dbs }));
} finally {
  await server.stop();
}
