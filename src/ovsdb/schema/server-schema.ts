/**
 * The `_Server` database's schema, as ovsdb-server 3.1 serves it: the client
 * monitors it to choose a cluster member, and the in-memory server serves it.
 * Both come from the model generated from `schema/_server.ovsschema` into
 * `generated/server/` (`npm run codegen:server`).
 * @module
 */

import { Server, ServerSchemaJson } from './generated/server/index.js';
import type { DatabaseSchema } from './schema-types.js';

/**
 * The `_Server` schema ovsdb-server 3.1 serves (version 1.2.0), as JSON:
 * `schema/_server.ovsschema` exactly, members in its order.
 */
export const SERVER_SCHEMA_JSON = ServerSchemaJson;

/** The `_Server` database schema (version 1.2.0), as ovsdb-server serves it. */
export const SERVER_SCHEMA: DatabaseSchema = Server.schema;
