/**
 * Desired state over any NB model: {@link NB_KEYS}, the natural keys of the
 * Northbound tables that have no schema index (or whose index is not the
 * key a controller names a row by), and {@link nbDesiredState}, a
 * `DesiredState` with those keys and the DSL's checks of match
 * expressions and port addresses.
 *
 * ```ts
 * import { NB, nbDesiredState } from 'ovnkit/nb';
 * import { applyDesired, keyOf } from 'ovnkit/desired';
 *
 * const d = nbDesiredState(NB, { owner: 'tenant-a' });
 * const sw = d.add('Logical_Switch', { name: 'tenant-a' });
 * d.add('Logical_Switch_Port', { name: 'a-web', addresses: ['0a:00:00:00:00:01 10.0.0.11'] }, { in: sw });
 * const pg = d.add('Port_Group', { name: 'tenant_a_web', ports: [keyOf('Logical_Switch_Port', { name: 'a-web' })] });
 * d.add('ACL', { direction: 'to-lport', priority: 1000, match: 'outport == @tenant_a_web && tcp.dst == 80', action: 'allow-related' }, { in: pg });
 * await applyDesired(client, d);
 * ```
 * @module
 */

import { DesiredStateError } from '../desired/errors.js';
import type { TableKeySpec } from '../desired/keys.js';
import { DesiredState, type DesiredStateOptions } from '../desired/state.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { parseLspAddress } from './addresses.js';
import { parseMatch } from './match/parser.js';

/**
 * The natural keys of NB tables without a usable schema index. A key
 * column a model lacks is dropped (e.g. `route_table` before 6.1): the same
 * keys serve every NB model version. Rows of the non-root tables among them
 * are known by their key *in* their parent (an ACL in its switch or port
 * group, a NAT or a route in its router).
 *
 * | table | key |
 * | --- | --- |
 * | Logical_Switch, Logical_Router, Load_Balancer | name |
 * | DHCP_Options | cidr |
 * | ACL, QoS | direction, priority, match (in the switch or port group) |
 * | NAT | type, external_ip, logical_ip (in the router) |
 * | Logical_Router_Static_Route | ip_prefix, nexthop, policy, route_table (in the router) |
 * | Logical_Router_Policy | priority, match (in the router) |
 * | Meter_Band | action, rate, burst_size (in the meter) |
 * | HA_Chassis | chassis_name (in the group) |
 * | Forwarding_Group | name (in the switch) |
 * | Load_Balancer_Health_Check | vip (in the load balancer) |
 *
 * The tables with a schema index (Logical_Switch_Port, Logical_Router_Port,
 * Port_Group, Address_Set, Meter, Gateway_Chassis, HA_Chassis_Group, …) are
 * keyed by it.
 */
export const NB_KEYS: Readonly<Record<string, TableKeySpec>> = {
  Logical_Switch: { columns: ['name'] },
  Logical_Router: { columns: ['name'] },
  Load_Balancer: { columns: ['name'] },
  DHCP_Options: { columns: ['cidr'] },
  ACL: { columns: ['direction', 'priority', 'match'] },
  QoS: { columns: ['direction', 'priority', 'match'] },
  NAT: { columns: ['type', 'external_ip', 'logical_ip'] },
  Logical_Router_Static_Route: { columns: ['ip_prefix', 'nexthop', 'policy', 'route_table'] },
  Logical_Router_Policy: { columns: ['priority', 'match'] },
  Meter_Band: { columns: ['action', 'rate', 'burst_size'] },
  HA_Chassis: { columns: ['chassis_name'] },
  Forwarding_Group: { columns: ['name'] },
  Load_Balancer_Health_Check: { columns: ['vip'] },
};

/** Options of {@link nbDesiredState}: those of `DesiredState`; `keys` add to or override {@link NB_KEYS}. */
export type NbDesiredStateOptions<DB extends TableMap> = DesiredStateOptions<DB>;

const MATCH_TABLES: ReadonlySet<string> = new Set(['ACL', 'QoS', 'Logical_Router_Policy']);

/**
 * Match expressions and port addresses already found valid. The checks are
 * pure, so a controller that declares the same rows on every pass checks
 * each text once; bounded (cleared when full).
 */
const VALID = new Set<string>();
const VALID_MAX = 200_000;

function checkText(kind: 'match' | 'address', text: string, check: (t: string) => unknown): void {
  const key = `${kind}\u0000${text}`;
  if (VALID.has(key)) return;
  check(text);
  if (VALID.size >= VALID_MAX) VALID.clear();
  VALID.add(key);
}

function badValue(table: string, column: string, error: unknown): never {
  throw new DesiredStateError(
    'bad-value',
    `${table}.${column}: ${error instanceof Error ? error.message : String(error)}`,
    { table, column },
    { cause: error },
  );
}

/** The DSL's checks of a declared NB row: match expressions and port addresses. */
function checkNbRow(table: string, row: Readonly<Record<string, unknown>>): void {
  if (MATCH_TABLES.has(table) && typeof row['match'] === 'string') {
    try {
      checkText('match', row['match'], parseMatch);
    } catch (e) {
      badValue(table, 'match', e);
    }
  }
  if (table === 'Logical_Switch_Port' && Array.isArray(row['addresses'])) {
    for (const a of row['addresses'] as unknown[]) {
      try {
        if (typeof a === 'string') checkText('address', a, parseLspAddress);
        else parseLspAddress(a as string);
      } catch (e) {
        badValue(table, 'addresses', e);
      }
    }
  }
}

/**
 * A `DesiredState` over NB model `model` (any version) with {@link NB_KEYS}
 * and the DSL's checks (match expressions of ACLs, QoS rules and router
 * policies; port addresses), so that a bad row is refused at `add` with the
 * DSL's reason.
 */
export function nbDesiredState<DB extends TableMap>(
  model: DatabaseModel<DB>,
  options: NbDesiredStateOptions<DB>,
): DesiredState<DB> {
  const validate = options.validate;
  return new DesiredState(model, {
    ...options,
    keys: {
      ...NB_KEYS,
      ...(options.keys as Readonly<Record<string, TableKeySpec>> | undefined),
    } as never,
    validate: (table, row) => {
      checkNbRow(table, row);
      validate?.(table, row);
    },
  });
}
