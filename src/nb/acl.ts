/**
 * ACLs on logical switches and port groups: add (with direction, priority,
 * match, action, logging, severity, meter, name, label, options), delete by
 * direction, priority and match, list. (`ovn-nbctl acl-add`, `acl-del`,
 * `acl-list`.)
 *
 * The match may be OVN text or a tree from the match builder (`match/expr.ts`),
 * which quotes names safely: prefer the builder for anything that comes from
 * users.
 *
 * An ACL's identity on its switch or port group is (direction, priority,
 * match), as for `ovn-nbctl`.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { InvalidArgumentError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import type { NBTables } from './generated/model.js';
import { getNamed, type PortGroupRef, type SwitchRef } from './lookup.js';
import { type MatchInput, matchText } from './match/expr.js';
import type { ColumnValue, IfColumn, NeedsOf, RowIn } from './needs.js';
import {
  addRule,
  byRuleOrder,
  describeRule,
  heldRules,
  type RuleHolder,
  removeRules,
  selectDirected,
} from './rules.js';
import type { NbInsert, NbRow, NbTxn } from './txn.js';
import { checkEnum, checkIntRange, checkPriority, checkStringMap } from './validate.js';

/** ACL directions. */
export const ACL_DIRECTIONS = ['from-lport', 'to-lport'] as const;
/** An ACL direction. */
export type AclDirectionName = (typeof ACL_DIRECTIONS)[number];
/** ACL actions. */
export const ACL_ACTIONS = [
  'allow',
  'allow-related',
  'allow-stateless',
  'drop',
  'reject',
  'pass',
] as const;
/** An ACL action. */
export type AclActionName = (typeof ACL_ACTIONS)[number];
/** ACL log severities. */
export const ACL_SEVERITIES = ['alert', 'warning', 'notice', 'info', 'debug'] as const;
/** An ACL log severity. */
export type AclSeverityName = (typeof ACL_SEVERITIES)[number];

/** Where ACLs live: a logical switch or a port group. */
export type AclTarget = { readonly switch: SwitchRef } | { readonly portGroup: PortGroupRef };

/**
 * An ACL. With a model other than the bundled one (`DB`), the actions are
 * those of its schema (`pass` from NB 7.1.0) and `tier` exists only when
 * its ACL table has the column.
 */
export interface AclSpec<DB = NBTables> {
  /** `from-lport` (ingress into the switch) or `to-lport`. */
  readonly direction: AclDirectionName;
  /** 0..32767; higher wins. */
  readonly priority: number;
  /** The match: OVN text, or a tree from `match.*`. */
  readonly match: MatchInput;
  /** What to do with matching packets. */
  readonly action: AclActionName & ColumnValue<DB, 'ACL', 'action'>;
  /** Log matching packets. Defaults to true when `severity`, `name` or `meter` is given (as for `ovn-nbctl`). */
  readonly log?: boolean | undefined;
  /** Log severity. */
  readonly severity?: AclSeverityName | undefined;
  /** Log name (up to 63 bytes). */
  readonly name?: string | undefined;
  /** Meter (by name) that rate-limits the logging. */
  readonly meter?: string | undefined;
  /** A label (0..4294967295) for `allow` and `allow-related` ACLs. */
  readonly label?: number | undefined;
  /** Tier (0..3; NB schema 7.1.0 and later). */
  readonly tier?: IfColumn<DB, 'ACL', 'tier', number> | undefined;
  /** `options`, e.g. `{ 'apply-after-lb': 'true' }`. */
  readonly options?: Readonly<Record<string, string>> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/** Which ACLs {@link aclDel} removes: all, those of a direction, or one (direction, priority and match). */
export interface AclFilter {
  readonly direction?: AclDirectionName | undefined;
  readonly priority?: number | undefined;
  readonly match?: MatchInput | undefined;
}

function describe(t: AclTarget): string {
  return 'switch' in t ? `switch ${t.switch}` : `port group ${t.portGroup}`;
}

function held(
  t: NbTxn,
  table: 'Logical_Switch' | 'Port_Group',
  row: { readonly _uuid: string; readonly acls: readonly string[] },
  name: string,
): { holder: RuleHolder; acls: NbRow<'ACL'>[] } {
  return {
    holder: { table, uuid: row._uuid, column: 'acls', name },
    acls: heldRules(t, 'ACL', row.acls),
  };
}

/** The row holding the ACLs of `target`, and the ACLs it holds. */
function owner(t: NbTxn, target: AclTarget): { holder: RuleHolder; acls: NbRow<'ACL'>[] } {
  if (target === null || typeof target !== 'object') {
    throw new InvalidArgumentError('ACL target', target, 'must be { switch } or { portGroup }');
  }
  if ('switch' in target && !('portGroup' in target)) {
    const row = getNamed(t, 'Logical_Switch', target.switch);
    return held(t, 'Logical_Switch', row, describe(target));
  }
  if ('portGroup' in target && !('switch' in target)) {
    const row = getNamed(t, 'Port_Group', target.portGroup);
    return held(t, 'Port_Group', row, describe(target));
  }
  throw new InvalidArgumentError(
    'ACL target',
    target,
    'must be exactly one of { switch } or { portGroup }',
  );
}

/**
 * Check an {@link AclSpec} and turn it into an ACL row.
 * @throws OutOfRangeError for a priority or label out of range;
 *   InvalidArgumentError for a bad direction, action, severity or name.
 */
export function encodeAcl(spec: AclSpec): NbInsert<'ACL'> {
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('ACL', spec, 'must be an object');
  const direction = checkEnum('ACL.direction', spec.direction, ACL_DIRECTIONS);
  const priority = checkPriority('ACL.priority', spec.priority);
  const action = checkEnum('ACL.action', spec.action, ACL_ACTIONS);
  const match = matchText(spec.match, 'ACL.match');
  const row: { -readonly [K in keyof NbInsert<'ACL'>]: NbInsert<'ACL'>[K] } = {
    direction,
    priority,
    match,
    action,
  };
  if (spec.severity !== undefined)
    row.severity = checkEnum('ACL.severity', spec.severity, ACL_SEVERITIES);
  if (spec.name !== undefined) {
    if (typeof spec.name !== 'string' || Buffer.byteLength(spec.name) > 63) {
      throw new InvalidArgumentError('ACL.name', spec.name, 'must be a string of at most 63 bytes');
    }
    row.name = spec.name;
  }
  if (spec.meter !== undefined) {
    if (typeof spec.meter !== 'string')
      throw new InvalidArgumentError('ACL.meter', spec.meter, 'must be a string');
    row.meter = spec.meter;
  }
  if (spec.log !== undefined && typeof spec.log !== 'boolean') {
    throw new InvalidArgumentError('ACL.log', spec.log, 'must be a boolean');
  }
  const log =
    spec.log ??
    (spec.severity !== undefined || spec.name !== undefined || spec.meter !== undefined);
  if (log) row.log = true;
  if (spec.label !== undefined) {
    if (action !== 'allow' && action !== 'allow-related') {
      throw new InvalidArgumentError(
        'ACL.label',
        spec.label,
        'a label can only be set with actions "allow" or "allow-related"',
      );
    }
    row.label = checkIntRange('ACL.label', spec.label, 0, 4294967295);
  }
  if (spec.tier !== undefined) row.tier = checkIntRange('ACL.tier', spec.tier, 0, 3);
  if (spec.options !== undefined) row.options = checkStringMap('ACL.options', spec.options);
  if (spec.externalIds !== undefined)
    row.external_ids = checkStringMap('ACL.external_ids', spec.externalIds);
  return row;
}

/**
 * Add an ACL to a logical switch or a port group (`ovn-nbctl acl-add`).
 *
 * ```ts
 * aclAdd(t, { portGroup: 'pg_web' }, {
 *   direction: 'to-lport', priority: 1001, action: 'allow-related',
 *   match: match.and(match.outport(match.portGroup('pg_web')), match.eq('tcp.dst', 443)),
 *   name: 'web-https', severity: 'info',
 * });
 * // {"op":"insert","table":"ACL","row":{"action":"allow-related","direction":"to-lport","log":true,
 * //   "match":"outport == @pg_web && tcp.dst == 443","name":"web-https","priority":1001,"severity":"info"},
 * //   "uuid":"<acl>","uuid-name":"row0"}
 * // {"op":"mutate","table":"Port_Group",…,"mutations":[["acls","insert",["set",[["named-uuid","row0"]]]]]}
 * ```
 * @throws AlreadyExistsError when an ACL with the same direction, priority
 *   and match exists there (unless `mayExist`); OutOfRangeError,
 *   InvalidArgumentError for bad fields; NotFoundError for an unknown target.
 */
export function aclAdd<DB extends NeedsOf<'aclAdd'>>(
  t: NbTxn<DB>,
  target: AclTarget,
  spec: NoInfer<AclSpec<DB>>,
  options?: CreateOptions,
): Uuid<'ACL'>;
export function aclAdd(
  t: NbTxn,
  target: AclTarget,
  spec: AclSpec,
  options: CreateOptions = {},
): Uuid<'ACL'> {
  const row = encodeAcl(spec);
  const { holder, acls } = owner(t, target);
  const same = acls.find(
    (a) => a.direction === row.direction && a.priority === row.priority && a.match === row.match,
  );
  const key = describeRule(row.direction, row.priority!, row.match!);
  return addRule(t, 'ACL', row, holder, same, options, 'ACL', key);
}

/**
 * Remove ACLs from a switch or port group (`ovn-nbctl acl-del`): all of them
 * (no filter), those of a direction, or the one with the given direction,
 * priority and match. Returns how many were removed.
 *
 * ```ts
 * aclDel(t, { switch: 'sw0' }, { direction: 'to-lport', priority: 1001, match: 'tcp.dst == 443' });
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["acls","delete",["set",[["uuid","<acl>"]]]]]}
 * ```
 * @throws NotFoundError when the one ACL named by direction, priority and
 *   match does not exist (unless `ifExists`); InvalidArgumentError for a
 *   priority without a match (or the reverse).
 */
export function aclDel<DB extends NeedsOf<'aclDel'>>(
  t: NbTxn<DB>,
  target: AclTarget,
  filter?: AclFilter,
  options?: DeleteOptions,
): number;
export function aclDel(
  t: NbTxn,
  target: AclTarget,
  filter: AclFilter = {},
  options: DeleteOptions = {},
): number {
  const { holder, acls } = owner(t, target);
  const { victims, single } = selectDirected(acls, filter, 'ACL', ACL_DIRECTIONS, 'aclDel');
  return removeRules(t, holder, victims, options, 'ACL', single);
}

/**
 * The ACLs of a switch or port group, in `ovn-nbctl acl-list` order
 * (direction, then priority descending, then match).
 */
export function aclList<DB extends NeedsOf<'aclList'>>(
  t: NbTxn<DB>,
  target: AclTarget,
): RowIn<DB, 'ACL'>[];
export function aclList(t: NbTxn, target: AclTarget): NbRow<'ACL'>[] {
  return owner(t, target).acls.sort(byRuleOrder);
}
