/**
 * The `_Server` database's schema, as ovsdb-server 3.1 serves it: the client
 * monitors it to choose a cluster member, and the in-memory server serves it.
 * @module
 */

import { parseSchema } from './schema.js';
import type { DatabaseSchema } from './schema-types.js';

/** The `_Server` schema ovsdb-server 3.1 serves (version 1.2.0), as JSON. */
export const SERVER_SCHEMA_JSON = {
  name: '_Server',
  version: '1.2.0',
  cksum: '3009684573 744',
  tables: {
    Database: {
      columns: {
        name: { type: 'string' },
        model: {
          type: { key: { type: 'string', enum: ['set', ['standalone', 'clustered', 'relay']] } },
        },
        connected: { type: 'boolean' },
        leader: { type: 'boolean' },
        schema: { type: { key: { type: 'string' }, min: 0, max: 1 } },
        cid: { type: { key: { type: 'uuid' }, min: 0, max: 1 } },
        sid: { type: { key: { type: 'uuid' }, min: 0, max: 1 } },
        index: { type: { key: { type: 'integer' }, min: 0, max: 1 } },
      },
      isRoot: true,
    },
  },
} as const;

/** The `_Server` database schema (version 1.2.0), as ovsdb-server serves it. */
export const SERVER_SCHEMA: DatabaseSchema = parseSchema(SERVER_SCHEMA_JSON);
