/**
 * Logical router policies (policy-based routing): priority 0..32767, a
 * match, an action (`allow`, `drop`, `reroute` to nexthops), options and
 * external IDs (`ovn-nbctl lr-policy-add`, `lr-policy-del`,
 * `lr-policy-list`). A policy's identity on its router is (priority, match).
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { InvalidArgumentError, MissingNexthopError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { normalizeIp, parseIp } from './ip.js';
import { getNamed, type RouterRef } from './lookup.js';
import { type MatchInput, matchText } from './match/expr.js';
import type { NeedsOf, RowIn } from './needs.js';
import {
  addRule,
  byRuleOrder,
  describeRule,
  heldRules,
  type RuleHolder,
  removeRules,
} from './rules.js';
import type { NbInsert, NbRow, NbTxn } from './txn.js';
import { checkEnum, checkPriority, checkStringMap } from './validate.js';

/** Router policy actions. */
export const POLICY_ACTIONS = ['allow', 'drop', 'reroute'] as const;
/** A router policy action. */
export type PolicyActionName = (typeof POLICY_ACTIONS)[number];

/** A router policy. */
export interface PolicySpec {
  /** 0..32767; higher is evaluated first. */
  readonly priority: number;
  /** The match: OVN text, or a tree from `match.*`. */
  readonly match: MatchInput;
  /** What to do with matching packets. */
  readonly action: PolicyActionName;
  /** `reroute` only (and required): one or more nexthop IPs of one family. */
  readonly nexthops?: readonly string[] | undefined;
  /** `options`, e.g. `{ pkt_mark: '100' }`. */
  readonly options?: Readonly<Record<string, string>> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/**
 * Which policies {@link lrPolicyDel} removes: all (no filter), those of a
 * priority, the one with a priority and match, the one with a UUID, or those
 * whose `external_ids` contain all the given pairs.
 */
export type PolicyFilter =
  | { readonly priority: number; readonly match?: MatchInput | undefined }
  | { readonly uuid: string }
  | { readonly externalIds: Readonly<Record<string, string>> };

type PolicyRow = NbRow<'Logical_Router_Policy'>;

/**
 * Check a {@link PolicySpec} and turn it into a policy row.
 * @throws OutOfRangeError for the priority; MissingNexthopError for a
 *   reroute without nexthop; InvalidAddressError for a bad nexthop;
 *   InvalidArgumentError for the rest.
 */
export function encodePolicy(spec: PolicySpec): NbInsert<'Logical_Router_Policy'> {
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('Logical_Router_Policy', spec, 'must be an object');
  const priority = checkPriority('Logical_Router_Policy.priority', spec.priority);
  const match = matchText(spec.match, 'Logical_Router_Policy.match');
  const action = checkEnum('Logical_Router_Policy.action', spec.action, POLICY_ACTIONS);
  const row: {
    -readonly [K in keyof NbInsert<'Logical_Router_Policy'>]: NbInsert<'Logical_Router_Policy'>[K];
  } = {
    priority,
    match,
    action,
  };
  if (action === 'reroute') {
    if (
      spec.nexthops === undefined ||
      !Array.isArray(spec.nexthops) ||
      spec.nexthops.length === 0
    ) {
      throw new MissingNexthopError(priority, match);
    }
    const families = new Set(spec.nexthops.map((n) => parseIp(n)?.family));
    const nexthops = spec.nexthops.map((n) => normalizeIp(n, 'Logical_Router_Policy.nexthops'));
    if (families.size > 1) {
      throw new InvalidArgumentError(
        'Logical_Router_Policy.nexthops',
        spec.nexthops,
        'nexthops must all be IPv4 or all IPv6',
      );
    }
    row.nexthops = [...new Set(nexthops)];
  } else if (spec.nexthops !== undefined && spec.nexthops.length > 0) {
    throw new InvalidArgumentError(
      'Logical_Router_Policy.nexthops',
      spec.nexthops,
      `nexthops are only valid with action "reroute", not "${action}"`,
    );
  }
  if (spec.options !== undefined) {
    const options = checkStringMap('Logical_Router_Policy.options', spec.options);
    for (const [k, v] of Object.entries(options)) {
      if (v === '')
        throw new InvalidArgumentError(
          `Logical_Router_Policy.options:${k}`,
          v,
          'no value given for the option',
        );
    }
    row.options = options;
  }
  if (spec.externalIds !== undefined)
    row.external_ids = checkStringMap('Logical_Router_Policy.external_ids', spec.externalIds);
  return row;
}

/** The router `router` as the holder of its policies, and the policies it holds. */
function policiesOf(t: NbTxn, router: RouterRef): { holder: RuleHolder; policies: PolicyRow[] } {
  const lr = getNamed(t, 'Logical_Router', router);
  return {
    holder: {
      table: 'Logical_Router',
      uuid: lr._uuid,
      column: 'policies',
      name: `router ${lr.name || lr._uuid}`,
    },
    policies: heldRules(t, 'Logical_Router_Policy', lr.policies),
  };
}

/**
 * Add a policy to a router (`ovn-nbctl lr-policy-add`).
 *
 * ```ts
 * lrPolicyAdd(t, 'lr0', { priority: 100, match: match.ip4Src('10.0.0.0/24'), action: 'reroute', nexthops: ['172.16.0.254'] });
 * // {"op":"insert","table":"Logical_Router_Policy","row":{"action":"reroute","match":"ip4.src == 10.0.0.0/24",
 * //   "nexthops":["set",["172.16.0.254"]],"priority":100},"uuid":"<p>","uuid-name":"row0"}
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["policies","insert",["set",[["named-uuid","row0"]]]]]}
 * ```
 * @throws AlreadyExistsError when a policy with this priority and match
 *   exists (unless `mayExist`); see {@link encodePolicy}.
 */
export function lrPolicyAdd<DB extends NeedsOf<'lrPolicyAdd'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  spec: PolicySpec,
  options?: CreateOptions,
): Uuid<'Logical_Router_Policy'>;
export function lrPolicyAdd(
  t: NbTxn,
  router: RouterRef,
  spec: PolicySpec,
  options: CreateOptions = {},
): Uuid<'Logical_Router_Policy'> {
  const row = encodePolicy(spec);
  const { holder, policies } = policiesOf(t, router);
  const same = policies.find((p) => p.priority === row.priority && p.match === row.match);
  const key = describeRule(undefined, row.priority!, row.match!);
  return addRule(t, 'Logical_Router_Policy', row, holder, same, options, 'router policy', key);
}

/**
 * Remove policies from a router (`ovn-nbctl lr-policy-del`; selecting by
 * `external_ids` is an addition). Returns how many were removed.
 *
 * ```ts
 * lrPolicyDel(t, 'lr0', { externalIds: { owner: 'egress-gw' } });
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["policies","delete",["set",[["uuid","<p1>"],["uuid","<p2>"]]]]]}
 * ```
 * @throws NotFoundError when the one policy named by priority and match, or
 *   by UUID, does not exist (unless `ifExists`).
 */
export function lrPolicyDel<DB extends NeedsOf<'lrPolicyDel'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  filter?: PolicyFilter,
  options?: DeleteOptions,
): number;
export function lrPolicyDel(
  t: NbTxn,
  router: RouterRef,
  filter?: PolicyFilter,
  options: DeleteOptions = {},
): number {
  const { holder, policies: all } = policiesOf(t, router);
  let victims: PolicyRow[];
  let single: string | undefined;
  if (filter === undefined) {
    victims = all;
  } else if ('uuid' in filter) {
    victims = all.filter((p) => p._uuid === String(filter.uuid).toLowerCase());
    single = `UUID ${filter.uuid}`;
  } else if ('externalIds' in filter) {
    const want = checkStringMap('externalIds', filter.externalIds);
    victims = all.filter((p) => Object.entries(want).every(([k, v]) => p.external_ids[k] === v));
  } else {
    const priority = checkPriority('Logical_Router_Policy.priority', filter.priority);
    const match = filter.match === undefined ? undefined : matchText(filter.match);
    victims = all.filter(
      (p) => p.priority === priority && (match === undefined || p.match === match),
    );
    if (match !== undefined) single = describeRule(undefined, priority, match);
  }
  return removeRules(t, holder, victims, options, 'router policy', single);
}

/** The policies of a router, by priority (highest first), then match (`ovn-nbctl lr-policy-list`). */
export function lrPolicyList<DB extends NeedsOf<'lrPolicyList'>>(
  t: NbTxn<DB>,
  router: RouterRef,
): RowIn<DB, 'Logical_Router_Policy'>[];
export function lrPolicyList(t: NbTxn, router: RouterRef): PolicyRow[] {
  return policiesOf(t, router).policies.sort(byRuleOrder);
}
