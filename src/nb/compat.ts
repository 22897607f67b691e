/**
 * {@link NB_COMPAT}: the columns of the bundled Northbound model (NB 7.18.0)
 * that a server running another supported NB schema may lack, for the
 * database client's `compat` option.
 *
 * A column the server's schema lacks is absent from the rows the client
 * reads (not a property of the row: `'tier' in acl` is false, `acl.tier`
 * reads `undefined`); it is never filled with a default the server does not
 * hold. With `compat: NB_COMPAT`, the row types say so: those columns are
 * typed `T | undefined`, the others keep the model's types.
 *
 * ```ts
 * import { NB, NB_COMPAT, connectNb } from 'ovnkit/nb';
 *
 * const nb = await connectNb({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', compat: NB_COMPAT });
 * for (const acl of nb.client.rows('ACL')) {
 *   acl.tier; // number | undefined: undefined against a server before NB 7.1.0
 *   acl.priority; // number
 * }
 * nb.client.absentColumns('ACL'); // against NB 7.0.0: ['network_function_group', 'sample_est', 'sample_new', 'tier']
 * ```
 *
 * Tables a server may lack entirely (`Sample`, `Mirror` before 7.0.0, …)
 * are not listed: the client does not monitor them there, so they have no
 * rows (and a read of one in a transaction fails with `SchemaDriftError`).
 * @module
 */

import type { CompatSpec, CompatTables } from '../ovsdb/schema/compat.js';
import type { NBTables } from './generated/model.js';

/**
 * The NB schemas {@link NB_COMPAT} covers: a server of any of them lacks at
 * most the columns listed (`test/fixtures/schemas/`).
 */
export const NB_COMPAT_SCHEMAS = [
  '6.1.0',
  '6.3.0',
  '7.0.0',
  '7.1.0',
  '7.3.0',
  '7.6.0',
  '7.11.0',
  '7.12.0',
  '7.18.0',
  '7.19.0',
] as const;

/**
 * Per table, the columns of the bundled model that a server of one of
 * {@link NB_COMPAT_SCHEMAS} lacks, or has with a type that may hold a value
 * the model's type has no form for (`Network_Function.outport`, optional in
 * 7.19.0: a row with none lacks the column): the `compat` option of
 * `connectDatabase` and `connectNb` for the bundled `NB`.
 */
export const NB_COMPAT = {
  ACL: ['network_function_group', 'sample_est', 'sample_new', 'tier'],
  DNS: ['options'],
  Logical_Router_Policy: ['bfd_sessions', 'chain', 'jump_chain', 'output_port'],
  Logical_Router_Port: ['dhcp_relay', 'status'],
  Logical_Router_Static_Route: ['selection_fields'],
  Logical_Switch_Port: ['health_checks', 'mirror_rules', 'peer'],
  Mirror: ['mirror_rules'],
  NAT: ['gateway_port', 'match', 'priority'],
  Network_Function: ['outport'],
  SSL: ['ssl_ciphersuites'],
} as const satisfies CompatSpec<NBTables>;

/**
 * The bundled model's table map as a client with `compat: NB_COMPAT` reads
 * it: the columns of {@link NB_COMPAT} typed `T | undefined`.
 */
export type NBCompatTables = CompatTables<NBTables, typeof NB_COMPAT>;
