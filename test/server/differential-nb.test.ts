/**
 * Differential tests against the OVN Northbound 7.18.0 schema: the engine and a
 * real ovsdb-server must give equal normalized results and final dumps.
 */

import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../helpers/ovsdb-client.js';
import { nb } from './corpus/nb.js';
import { Differential, loadSchema, NB_SCHEMA_PATH } from './harness.js';

const schema = loadSchema(NB_SCHEMA_PATH);
let server: RealServer;
let diff: Differential;

beforeAll(async () => {
  server = await startRealServer(NB_SCHEMA_PATH);
  diff = new Differential(schema, server);
});

afterAll(async () => {
  await server?.close();
});

for (const c of nb) {
  it(c.name, async () => {
    await diff.reset();
    for (const [i, txn] of c.txns.entries()) {
      const { engine, server: real } = await diff.step(txn);
      expect(engine, `transaction ${i}: ${JSON.stringify(txn)}`).toEqual(real);
      const dumps = await diff.dumps();
      expect(dumps.engine, `dump after transaction ${i}`).toEqual(dumps.server);
    }
  });
}
