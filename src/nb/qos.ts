/**
 * QoS rules on logical switches: add (DSCP marking, packet marking,
 * metering at a rate and burst), delete by direction, priority and match or
 * by UUID, list. (`ovn-nbctl qos-add`, `qos-del`, `qos-list`.)
 *
 * The match may be OVN text or a tree from the match builder (`match/expr.ts`).
 * A QoS rule's identity on its switch is (direction, priority, match), as
 * for `ovn-nbctl`.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { InvalidArgumentError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import type { NBTables } from './generated/model.js';
import { getNamed, type SwitchRef } from './lookup.js';
import { type MatchInput, matchText } from './match/expr.js';
import type { ColumnValue, NeedsOf, RowIn } from './needs.js';
import {
  addRule,
  byRuleOrder,
  describeRule,
  heldRules,
  type RuleHolder,
  removeRules,
  selectDirected,
} from './rules.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkEnum, checkIntRange, checkPriority, checkStringMap } from './validate.js';

/** QoS directions. */
export const QOS_DIRECTIONS = ['from-lport', 'to-lport'] as const;
/** A QoS direction. */
export type QosDirectionName = (typeof QOS_DIRECTIONS)[number];

/** The largest rate, burst and mark (`QoS.bandwidth` and `QoS.action` values). */
export const QOS_UINT32_MAX = 4294967295;

/** `V` when the model's `QoS.action` has the key `K` (`mark` from NB 7.3.0), otherwise `never`. */
export type IfQosAction<DB, K extends string, V> = K extends keyof ColumnValue<DB, 'QoS', 'action'>
  ? V
  : never;

/**
 * A QoS rule. At least one of `rate`, `dscp` and `mark` is required.
 * With a model other than the bundled one (`DB`), `mark` exists only when
 * its `QoS.action` column has the key.
 */
export interface QosSpec<DB = NBTables> {
  /** `from-lport` (traffic from the VM) or `to-lport`. */
  readonly direction: QosDirectionName;
  /** 0..32767; higher wins. */
  readonly priority: number;
  /** The match: OVN text, or a tree from `match.*`. */
  readonly match: MatchInput;
  /** Meter matching packets at this rate, kbps (1..4294967295). */
  readonly rate?: number | undefined;
  /** The burst of the meter, kilobits (1..4294967295); needs `rate`. */
  readonly burst?: number | undefined;
  /** Set the DSCP field of matching packets (0..63). */
  readonly dscp?: number | undefined;
  /** Set the packet mark of matching packets (1..4294967295; NB 7.3.0 and later). */
  readonly mark?: IfQosAction<DB, 'mark', number> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/**
 * Which QoS rules {@link qosDel} removes: all (no filter), those of a
 * direction, the one of a direction, priority and match, or the one with a
 * UUID.
 */
export type QosFilter =
  | {
      readonly direction?: QosDirectionName | undefined;
      readonly priority?: number | undefined;
      readonly match?: MatchInput | undefined;
    }
  | { readonly uuid: string };

type QosRow = NbRow<'QoS'>;

/** The switch `sw` as the holder of its QoS rules, and the rules it holds. */
function rulesOf(t: NbTxn, sw: SwitchRef): { holder: RuleHolder; rules: QosRow[] } {
  const ls = getNamed(t, 'Logical_Switch', sw);
  return {
    holder: {
      table: 'Logical_Switch',
      uuid: ls._uuid,
      column: 'qos_rules',
      name: `switch ${ls.name}`,
    },
    rules: heldRules(t, 'QoS', ls.qos_rules),
  };
}

/** The action keys the model's `QoS.action` column allows. */
function actionKeys(t: NbTxn): readonly string[] {
  const values = t.schema('QoS').columns['action']?.type.key.enum;
  return values === undefined ? ['dscp'] : values.filter((v) => typeof v === 'string');
}

/**
 * Add a QoS rule to a logical switch (`ovn-nbctl qos-add SWITCH DIRECTION
 * PRIORITY MATCH [rate=RATE [burst=BURST]] [dscp=DSCP] [mark=MARK]`).
 *
 * ```ts
 * qosAdd(t, 'sw0', {
 *   direction: 'from-lport', priority: 100,
 *   match: match.inport('web-1'), rate: 10000, burst: 1000, dscp: 46,
 * });
 * // {"op":"insert","table":"QoS","row":{"action":["map",[["dscp",46]]],
 * //   "bandwidth":["map",[["burst",1000],["rate",10000]]],"direction":"from-lport",
 * //   "match":"inport == \"web-1\"","priority":100},…}
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["qos_rules","insert",…]]}
 * ```
 * @throws AlreadyExistsError when a rule with the same direction, priority
 *   and match exists on the switch (unless `mayExist`: it is then returned
 *   as is); OutOfRangeError for a priority, rate, burst, DSCP or mark out of
 *   range; InvalidArgumentError for a bad direction, no action at all, a
 *   burst without a rate, or a mark the model lacks; NotFoundError for an
 *   unknown switch.
 */
export function qosAdd<DB extends NeedsOf<'qosAdd'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  spec: NoInfer<QosSpec<DB>>,
  options?: CreateOptions,
): Uuid<'QoS'>;
export function qosAdd(
  t: NbTxn,
  sw: SwitchRef,
  spec: QosSpec,
  options: CreateOptions = {},
): Uuid<'QoS'> {
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('QoS', spec, 'must be an object');
  const direction = checkEnum('QoS.direction', spec.direction, QOS_DIRECTIONS);
  const priority = checkPriority('QoS.priority', spec.priority);
  const match = matchText(spec.match, 'QoS.match');
  const bandwidth: Record<string, number> = {};
  if (spec.rate !== undefined)
    bandwidth.rate = checkIntRange('QoS.rate', spec.rate, 1, QOS_UINT32_MAX);
  if (spec.burst !== undefined) {
    if (spec.rate === undefined)
      throw new InvalidArgumentError('QoS.burst', spec.burst, 'a burst needs a rate');
    bandwidth.burst = checkIntRange('QoS.burst', spec.burst, 1, QOS_UINT32_MAX);
  }
  const action: Record<string, number> = {};
  if (spec.dscp !== undefined) action.dscp = checkIntRange('QoS.dscp', spec.dscp, 0, 63);
  if (spec.mark !== undefined) {
    if (!actionKeys(t).includes('mark')) {
      throw new InvalidArgumentError(
        'QoS.mark',
        spec.mark,
        "the model's QoS table has no mark action (NB 7.3.0 and later)",
      );
    }
    action.mark = checkIntRange('QoS.mark', spec.mark, 1, QOS_UINT32_MAX);
  }
  if (spec.rate === undefined && spec.dscp === undefined && spec.mark === undefined) {
    throw new InvalidArgumentError('QoS', spec, 'give at least one of rate, dscp and mark');
  }
  const externalIds =
    spec.externalIds === undefined
      ? undefined
      : checkStringMap('QoS.external_ids', spec.externalIds);
  const { holder, rules } = rulesOf(t, sw);
  const same = rules.find(
    (q) => q.direction === direction && q.priority === priority && q.match === match,
  );
  const row = {
    direction,
    priority,
    match,
    ...(Object.keys(action).length > 0 ? { action } : {}),
    ...(Object.keys(bandwidth).length > 0 ? { bandwidth } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  };
  return addRule(
    t,
    'QoS',
    row,
    holder,
    same,
    options,
    'QoS rule',
    describeRule(direction, priority, match),
  );
}

/**
 * Remove QoS rules from a logical switch (`ovn-nbctl qos-del SWITCH
 * [{DIRECTION | UUID} [PRIORITY MATCH]]`): all of them (no filter), those of
 * a direction, the one of a direction, priority and match, or the one with
 * a UUID. Returns how many were removed.
 *
 * ```ts
 * qosDel(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'inport == "web-1"' });
 * qosDel(t, 'sw0', { uuid: rule });
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["qos_rules","delete",…]]}
 * ```
 * @throws NotFoundError when the one rule named by direction, priority and
 *   match, or by UUID, is not on the switch (unless `ifExists`);
 *   InvalidArgumentError for a priority without a match (or the reverse),
 *   or a UUID with other fields.
 */
export function qosDel<DB extends NeedsOf<'qosDel'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  filter?: QosFilter,
  options?: DeleteOptions,
): number;
export function qosDel(
  t: NbTxn,
  sw: SwitchRef,
  filter: QosFilter = {},
  options: DeleteOptions = {},
): number {
  if (filter === null || typeof filter !== 'object')
    throw new InvalidArgumentError('qosDel', filter, 'the filter must be an object');
  const { holder, rules } = rulesOf(t, sw);
  if ('uuid' in filter) {
    const keys = Object.keys(filter).filter(
      (k) => (filter as Record<string, unknown>)[k] !== undefined,
    );
    if (keys.length !== 1)
      throw new InvalidArgumentError('qosDel', filter, 'a UUID must be the only field');
    if (typeof filter.uuid !== 'string' || !isUuid(filter.uuid))
      throw new InvalidArgumentError('QoS uuid', filter.uuid, 'must be a UUID');
    const uuid = filter.uuid.toLowerCase();
    const victims = rules.filter((r) => r._uuid === uuid);
    return removeRules(t, holder, victims, options, 'QoS rule', filter.uuid);
  }
  const { victims, single } = selectDirected(rules, filter, 'QoS', QOS_DIRECTIONS, 'qosDel');
  return removeRules(t, holder, victims, options, 'QoS rule', single);
}

/**
 * The QoS rules of a logical switch, in `ovn-nbctl qos-list` order
 * (direction `from-lport` first, then priority descending, then match).
 */
export function qosList<DB extends NeedsOf<'qosList'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
): RowIn<DB, 'QoS'>[];
export function qosList(t: NbTxn, sw: SwitchRef): QosRow[] {
  return rulesOf(t, sw).rules.sort(byRuleOrder);
}
