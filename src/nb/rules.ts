/**
 * Rules kept in a set column of their parent: ACLs (`acls` of a switch or
 * port group), QoS rules (`qos_rules` of a switch), router policies
 * (`policies` of a router). One way to read them, to add one unless its key
 * exists, to pick them by direction, priority and match, to remove them,
 * and to list them in `ovn-nbctl`'s order.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  type NbObjectKind,
  NotFoundError,
} from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { type MatchInput, matchText } from './match/expr.js';
import type { NbInsert, NbRow, NbTable, NbTxn } from './txn.js';
import { checkEnum, checkPriority } from './validate.js';

/** A table of rules. */
type RuleTable = Extract<NbTable, 'ACL' | 'QoS' | 'Logical_Router_Policy'>;
/** A table holding rules in a set column. */
type ParentTable = Extract<NbTable, 'Logical_Switch' | 'Port_Group' | 'Logical_Router'>;

/** Where a parent keeps its rules. */
export interface RuleHolder {
  /** The parent's table. */
  readonly table: ParentTable;
  /** The parent's row. */
  readonly uuid: string;
  /** The set column holding the rules' UUIDs. */
  readonly column: string;
  /** How messages name the parent, e.g. `switch sw0`. */
  readonly name: string;
}

/** The rows of `table` that `uuids` (a parent's set column) refers to, as the view has them. */
export function heldRules<T extends RuleTable>(
  t: NbTxn,
  table: T,
  uuids: readonly string[],
): NbRow<T>[] {
  const out: NbRow<T>[] = [];
  for (const u of uuids) {
    const row = t.get(table, u);
    if (row !== undefined) out.push(row);
  }
  return out;
}

/**
 * Insert rule `row` into `table` and add it to `holder`'s set column,
 * unless `same` (a rule of the holder with the same key) exists: then its
 * UUID with `mayExist`, else an {@link AlreadyExistsError} naming `what`
 * and `key`.
 */
export function addRule<T extends RuleTable>(
  t: NbTxn,
  table: T,
  row: NbInsert<T>,
  holder: RuleHolder,
  same: NbRow<T> | undefined,
  options: CreateOptions,
  what: NbObjectKind,
  key: string,
): Uuid<T> {
  if (same !== undefined) {
    if (options.mayExist) return same._uuid as Uuid<T>;
    throw new AlreadyExistsError(what, key, `on ${holder.name}`, same._uuid);
  }
  const rule = t.insert(table, row);
  t.addToSet(holder.table, holder.uuid, holder.column, [rule]);
  return rule;
}

/**
 * Remove `victims` from `holder`'s set column; with `single` (the one rule
 * a filter named, by its key), none of them is a {@link NotFoundError}
 * naming `what` unless `ifExists`. Returns how many were removed.
 */
export function removeRules(
  t: NbTxn,
  holder: RuleHolder,
  victims: readonly { readonly _uuid: string }[],
  options: DeleteOptions,
  what: NbObjectKind,
  single: string | undefined,
): number {
  if (victims.length === 0 && single !== undefined && !options.ifExists) {
    throw new NotFoundError(what, single, `on ${holder.name}`);
  }
  t.removeFromSet(
    holder.table,
    holder.uuid,
    holder.column,
    victims.map((r) => r._uuid),
  );
  return victims.length;
}

/** A rule's key: direction (ACLs and QoS rules only), priority and match. */
interface RuleKey {
  readonly direction?: string;
  readonly priority: number;
  readonly match: string;
}

/**
 * `ovn-nbctl`'s order of listed rules: `from-lport` first (for rules with
 * a direction), then priority descending, then match.
 */
export function byRuleOrder(a: RuleKey, b: RuleKey): number {
  if (a.direction !== b.direction) return a.direction === 'from-lport' ? -1 : 1;
  if (a.priority !== b.priority) return b.priority - a.priority;
  return a.match < b.match ? -1 : a.match > b.match ? 1 : 0;
}

/** `(direction, priority 100, match "…")`: a rule's key in messages. */
export function describeRule(
  direction: string | undefined,
  priority: number,
  match: string,
): string {
  return `(${direction === undefined ? '' : `${direction}, `}priority ${priority}, match ${JSON.stringify(match)})`;
}

/** What `aclDel` and `qosDel` select rules by. */
export interface DirectedFilter<D extends string> {
  readonly direction?: D | undefined;
  readonly priority?: number | undefined;
  readonly match?: MatchInput | undefined;
}

/**
 * The rules of `rules` a direction filter selects (every rule, those of a
 * direction, or the one of a direction, priority and match), and the key
 * of the one rule it names, if it names one.
 * @throws InvalidArgumentError for a priority without a match (or the
 *   reverse), or a priority without a direction.
 */
export function selectDirected<R extends { direction: string; priority: number; match: string }>(
  rules: readonly R[],
  filter: DirectedFilter<string>,
  table: 'ACL' | 'QoS',
  directions: readonly string[],
  op: string,
): { readonly victims: R[]; readonly single: string | undefined } {
  const direction =
    filter.direction === undefined
      ? undefined
      : checkEnum(`${table}.direction`, filter.direction, directions);
  if ((filter.priority === undefined) !== (filter.match === undefined)) {
    throw new InvalidArgumentError(op, filter, 'give both priority and match, or neither');
  }
  if (filter.priority !== undefined && direction === undefined) {
    throw new InvalidArgumentError(op, filter, 'priority and match need a direction');
  }
  const priority =
    filter.priority === undefined ? undefined : checkPriority(`${table}.priority`, filter.priority);
  const match = filter.match === undefined ? undefined : matchText(filter.match, `${table}.match`);
  const victims = rules.filter(
    (r) =>
      (direction === undefined || r.direction === direction) &&
      (priority === undefined || (r.priority === priority && r.match === match)),
  );
  return {
    victims,
    single: priority === undefined ? undefined : describeRule(direction, priority, match!),
  };
}
