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
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import type { NBTables } from './generated/model.js';
import { getNamed, type SwitchRef } from './lookup.js';
import { type MatchInput, matchText } from './match/expr.js';
import type { ColumnValue, NeedsOf, RowIn } from './needs.js';
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

function rulesOf(t: NbTxn, ls: NbRow<'Logical_Switch'>): QosRow[] {
  return ls.qos_rules.map((u) => t.get('QoS', u)).filter((q): q is QosRow => q !== undefined);
}

function describeRule(direction: string, priority: number, match: string): string {
  return `(${direction}, priority ${priority}, match ${JSON.stringify(match)})`;
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
  const ls = getNamed(t, 'Logical_Switch', sw);
  for (const q of rulesOf(t, ls)) {
    if (q.direction === direction && q.priority === priority && q.match === match) {
      if (options.mayExist) return q._uuid;
      throw new AlreadyExistsError(
        'QoS rule',
        describeRule(direction, priority, match),
        `on switch ${ls.name}`,
        q._uuid,
      );
    }
  }
  const qos = t.insert('QoS', {
    direction,
    priority,
    match,
    ...(Object.keys(action).length > 0 ? { action } : {}),
    ...(Object.keys(bandwidth).length > 0 ? { bandwidth } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
  t.addToSet('Logical_Switch', ls._uuid, 'qos_rules', [qos]);
  return qos;
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
  let victims: QosRow[];
  if ('uuid' in filter) {
    const keys = Object.keys(filter).filter(
      (k) => (filter as Record<string, unknown>)[k] !== undefined,
    );
    if (keys.length !== 1)
      throw new InvalidArgumentError('qosDel', filter, 'a UUID must be the only field');
    if (typeof filter.uuid !== 'string' || !isUuid(filter.uuid))
      throw new InvalidArgumentError('QoS uuid', filter.uuid, 'must be a UUID');
    const uuid = filter.uuid.toLowerCase();
    const ls = getNamed(t, 'Logical_Switch', sw);
    victims = rulesOf(t, ls).filter((q) => q._uuid === uuid);
    if (victims.length === 0) {
      if (options.ifExists) return 0;
      throw new NotFoundError('QoS rule', filter.uuid, `on switch ${ls.name}`);
    }
    t.removeFromSet('Logical_Switch', ls._uuid, 'qos_rules', [victims[0]!._uuid]);
    return 1;
  }
  const direction =
    filter.direction === undefined
      ? undefined
      : checkEnum('QoS.direction', filter.direction, QOS_DIRECTIONS);
  if ((filter.priority === undefined) !== (filter.match === undefined)) {
    throw new InvalidArgumentError('qosDel', filter, 'give both priority and match, or neither');
  }
  if (filter.priority !== undefined && direction === undefined) {
    throw new InvalidArgumentError('qosDel', filter, 'priority and match need a direction');
  }
  const priority =
    filter.priority === undefined ? undefined : checkPriority('QoS.priority', filter.priority);
  const match = filter.match === undefined ? undefined : matchText(filter.match, 'QoS.match');
  const ls = getNamed(t, 'Logical_Switch', sw);
  victims = rulesOf(t, ls).filter(
    (q) =>
      (direction === undefined || q.direction === direction) &&
      (priority === undefined || (q.priority === priority && q.match === match)),
  );
  if (victims.length === 0 && priority !== undefined && !options.ifExists) {
    throw new NotFoundError(
      'QoS rule',
      describeRule(direction!, priority, match!),
      `on switch ${ls.name}`,
    );
  }
  if (victims.length > 0) {
    t.removeFromSet(
      'Logical_Switch',
      ls._uuid,
      'qos_rules',
      victims.map((q) => q._uuid),
    );
  }
  return victims.length;
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
  const ls = getNamed(t, 'Logical_Switch', sw);
  return rulesOf(t, ls).sort((a, b) =>
    a.direction !== b.direction
      ? a.direction === 'from-lport'
        ? -1
        : 1
      : a.priority !== b.priority
        ? b.priority - a.priority
        : a.match < b.match
          ? -1
          : a.match > b.match
            ? 1
            : 0,
  );
}
