/**
 * Static routes of logical routers: prefix, nexthop (an IP, or `discard`),
 * output port, policy (`dst-ip`, `src-ip`), route table, ECMP (several
 * routes per prefix), BFD (`ovn-nbctl lr-route-add`, `lr-route-del`,
 * `lr-route-list`), and {@link lrRouteEnsure}, which updates a route in place.
 *
 * A route's identity on its router is (prefix, policy, route table) and,
 * for ECMP routes, the nexthop. Prefixes are stored normalized (host bits
 * cleared, `/32` and `/128` dropped) and nexthops in canonical form, as
 * `ovn-nbctl` does.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { normalizeIp, normalizePrefix, parsePrefix } from './ip.js';
import { getNamed, type RouterPortRef, type RouterRef } from './lookup.js';
import type { NeedsOf, RowIn } from './needs.js';
import type { NbInsert, NbRow, NbTxn } from './txn.js';
import { checkEnum, checkStringMap } from './validate.js';

/** Route policies. */
export const ROUTE_POLICIES = ['dst-ip', 'src-ip'] as const;
/** A route policy: match the destination (default) or the source. */
export type RoutePolicy = (typeof ROUTE_POLICIES)[number];

/** A static route. */
export interface RouteSpec {
  /** The prefix, `addr/len` or `addr`. */
  readonly prefix: string;
  /** The nexthop IP (of the prefix's family), or `discard`. Omit only with `outputPort`. */
  readonly nexthop?: string | undefined;
  /** The router port to send through. */
  readonly outputPort?: RouterPortRef | undefined;
  /** `dst-ip` (default, stored only when given) or `src-ip`. */
  readonly policy?: RoutePolicy | undefined;
  /** The route table (default: the main one). */
  readonly routeTable?: string | undefined;
  /** Allow several routes for the prefix (ECMP). */
  readonly ecmp?: boolean | undefined;
  /** ECMP with symmetric replies (implies `ecmp`). */
  readonly ecmpSymmetricReply?: boolean | undefined;
  /**
   * BFD for the nexthop: `true` uses the BFD row for (output port, nexthop),
   * creating it (needs `outputPort`); a UUID uses that row.
   */
  readonly bfd?: boolean | Uuid<'BFD'> | string | undefined;
  /** More `options`. */
  readonly options?: Readonly<Record<string, string>> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/** Which routes {@link lrRouteDel} removes. */
export interface RouteFilter {
  readonly prefix?: string | undefined;
  readonly nexthop?: string | undefined;
  readonly outputPort?: string | undefined;
  readonly policy?: RoutePolicy | undefined;
  /** The route table (default: the main one, when a prefix or policy is given). */
  readonly routeTable?: string | undefined;
}

type RouteRow = NbRow<'Logical_Router_Static_Route'>;
type RouteColumns = {
  -readonly [K in keyof NbInsert<'Logical_Router_Static_Route'>]: NbInsert<'Logical_Router_Static_Route'>[K];
};

interface Encoded {
  readonly row: RouteColumns;
  readonly prefix: string;
  readonly nexthop: string;
  readonly srcRoute: boolean;
  readonly table: string;
  readonly ecmp: boolean;
  /** The BFD to use: an existing row, or one to create for (port, ip). */
  readonly bfd:
    | { readonly uuid: Uuid<'BFD'> }
    | { readonly create: { port: string; ip: string } }
    | undefined;
}

function normalizedOrUndefined(s: string): string | undefined {
  try {
    return normalizePrefix(s);
  } catch {
    return undefined;
  }
}

function encode(t: NbTxn, spec: RouteSpec): Encoded {
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('Logical_Router_Static_Route', spec, 'must be an object');
  const p = parsePrefix(spec.prefix);
  const prefix = normalizePrefix(spec.prefix, 'Logical_Router_Static_Route.ip_prefix');
  const family = p!.family;
  const policy =
    spec.policy === undefined
      ? undefined
      : checkEnum('Logical_Router_Static_Route.policy', spec.policy, ROUTE_POLICIES);
  const table = spec.routeTable ?? '';
  if (typeof table !== 'string')
    throw new InvalidArgumentError(
      'Logical_Router_Static_Route.route_table',
      table,
      'must be a string',
    );
  const outputPort =
    spec.outputPort === undefined
      ? undefined
      : getNamed(t, 'Logical_Router_Port', spec.outputPort).name;
  let nexthop: string;
  if (spec.nexthop === 'discard') {
    nexthop = 'discard';
    if (spec.ecmp || spec.ecmpSymmetricReply)
      throw new InvalidArgumentError('ecmp', true, 'ECMP is not valid for discard routes');
    if (spec.bfd)
      throw new InvalidArgumentError('bfd', spec.bfd, 'BFD is not valid for discard routes');
    if (outputPort !== undefined)
      throw new InvalidArgumentError(
        'outputPort',
        outputPort,
        'an output port is not valid for discard routes',
      );
  } else if (spec.nexthop === undefined) {
    if (outputPort === undefined) {
      throw new InvalidArgumentError(
        'Logical_Router_Static_Route.nexthop',
        undefined,
        'give a nexthop, or an output port',
      );
    }
    nexthop = '';
  } else {
    nexthop = normalizeIp(spec.nexthop, 'Logical_Router_Static_Route.nexthop', family);
  }
  const ecmp = spec.ecmp === true || spec.ecmpSymmetricReply === true;
  const row: RouteColumns = { ip_prefix: prefix, nexthop };
  if (outputPort !== undefined) row.output_port = outputPort;
  if (policy !== undefined) row.policy = policy;
  if (table !== '') row.route_table = table;
  const options =
    spec.options === undefined
      ? {}
      : checkStringMap('Logical_Router_Static_Route.options', spec.options);
  if (spec.ecmpSymmetricReply) options['ecmp_symmetric_reply'] = 'true';
  if (Object.keys(options).length > 0) row.options = options;
  if (spec.externalIds !== undefined)
    row.external_ids = checkStringMap('Logical_Router_Static_Route.external_ids', spec.externalIds);
  let bfd: Encoded['bfd'];
  if (spec.bfd === true) {
    const found = t.find(
      'BFD',
      (b) => b.dst_ip === nexthop && (outputPort === undefined || b.logical_port === outputPort),
    );
    if (found !== undefined) bfd = { uuid: found._uuid };
    else if (outputPort === undefined) {
      throw new InvalidArgumentError('bfd', true, 'creating a BFD session needs an output port');
    } else bfd = { create: { port: outputPort, ip: nexthop } };
  } else if (typeof spec.bfd === 'string') {
    const row = t.get('BFD', spec.bfd);
    if (row === undefined) throw new NotFoundError('BFD session', spec.bfd);
    bfd = { uuid: row._uuid };
  } else if (spec.bfd !== undefined && spec.bfd !== false) {
    throw new InvalidArgumentError('bfd', spec.bfd, 'must be true or a BFD UUID');
  }
  return { row, prefix, nexthop, srcRoute: policy === 'src-ip', table, ecmp, bfd };
}

function routesOf(t: NbTxn, lr: NbRow<'Logical_Router'>): RouteRow[] {
  return lr.static_routes
    .map((u) => t.get('Logical_Router_Static_Route', u))
    .filter((r): r is RouteRow => r !== undefined);
}

/** The route with the same (prefix, policy, table), and nexthop when `nexthop` is given. */
function findRoute(
  routes: readonly RouteRow[],
  prefix: string,
  srcRoute: boolean,
  table: string,
  nexthop?: string,
): RouteRow | undefined {
  return routes.find(
    (r) =>
      r.route_table === table &&
      (r.policy === 'src-ip') === srcRoute &&
      normalizedOrUndefined(r.ip_prefix) === prefix &&
      (nexthop === undefined || r.nexthop === nexthop),
  );
}

function bfdRef(t: NbTxn, bfd: Encoded['bfd']): Uuid<'BFD'> | undefined {
  if (bfd === undefined) return undefined;
  if ('uuid' in bfd) return bfd.uuid;
  return t.insert('BFD', { logical_port: bfd.create.port, dst_ip: bfd.create.ip });
}

function describe(e: Encoded): string {
  return `(prefix ${e.prefix}, policy ${e.srcRoute ? 'src-ip' : 'dst-ip'}${e.table ? `, route table ${e.table}` : ''}${e.ecmp ? `, nexthop ${e.nexthop}` : ''})`;
}

/**
 * Add a static route (`ovn-nbctl lr-route-add`).
 *
 * ```ts
 * lrRouteAdd(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '172.16.0.254' });
 * // {"op":"insert","table":"Logical_Router_Static_Route","row":{"ip_prefix":"0.0.0.0/0","nexthop":"172.16.0.254"},…}
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["static_routes","insert",["set",[["named-uuid","row0"]]]]]}
 * lrRouteAdd(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.2', ecmp: true });
 * lrRouteAdd(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.3', ecmp: true });
 * ```
 * @throws AlreadyExistsError when the route exists (for a non-ECMP route:
 *   any route with the prefix, policy and table; for an ECMP route: one with
 *   the same nexthop too), or a discard route holds the prefix, unless
 *   `mayExist` (which then leaves it as is: use {@link lrRouteEnsure} to
 *   update it); InvalidAddressError for a bad prefix or nexthop.
 */
export function lrRouteAdd<DB extends NeedsOf<'lrRouteAdd'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  spec: RouteSpec,
  options?: CreateOptions,
): Uuid<'Logical_Router_Static_Route'>;
export function lrRouteAdd(
  t: NbTxn,
  router: RouterRef,
  spec: RouteSpec,
  options: CreateOptions = {},
): Uuid<'Logical_Router_Static_Route'> {
  const e = encode(t, spec);
  const lr = getNamed(t, 'Logical_Router', router);
  const routes = routesOf(t, lr);
  const existing = findRoute(routes, e.prefix, e.srcRoute, e.table, e.ecmp ? e.nexthop : undefined);
  if (existing !== undefined && existing.external_ids['ic-learned-route'] === undefined) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'static route',
      describe(e),
      e.ecmp
        ? 'duplicate nexthop for the same ECMP route'
        : 'use ecmp to add several routes for one prefix',
      existing._uuid,
    );
  }
  const discard = findRoute(routes, e.prefix, e.srcRoute, e.table, 'discard');
  if (discard !== undefined) {
    throw new AlreadyExistsError(
      'static route',
      describe(e),
      'a discard route exists for this prefix',
      discard._uuid,
    );
  }
  const bfd = bfdRef(t, e.bfd);
  const route = t.insert('Logical_Router_Static_Route', {
    ...e.row,
    ...(bfd !== undefined ? { bfd } : {}),
  });
  t.addToSet('Logical_Router', lr._uuid, 'static_routes', [route]);
  return route;
}

/**
 * Create the route, or update the existing one with the same prefix, policy
 * and table (nexthop, output port, policy, BFD), like
 * `ovn-nbctl --may-exist lr-route-add`; the `options` and `externalIds`
 * given are merged into its maps (others are kept). Not for ECMP routes.
 *
 * ```ts
 * lrRouteEnsure(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '172.16.0.253' });
 * // an existing default route: {"op":"update","table":"Logical_Router_Static_Route",…,"row":{"nexthop":"172.16.0.253"}}
 * ```
 */
export function lrRouteEnsure<DB extends NeedsOf<'lrRouteEnsure'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  spec: RouteSpec,
): Uuid<'Logical_Router_Static_Route'>;
export function lrRouteEnsure(
  t: NbTxn,
  router: RouterRef,
  spec: RouteSpec,
): Uuid<'Logical_Router_Static_Route'> {
  if (spec.ecmp || spec.ecmpSymmetricReply) {
    throw new InvalidArgumentError('lrRouteEnsure', spec, 'ECMP routes are added with lrRouteAdd');
  }
  const e = encode(t, spec);
  const lr = getNamed(t, 'Logical_Router', router);
  const existing = findRoute(routesOf(t, lr), e.prefix, e.srcRoute, e.table);
  if (existing === undefined) return lrRouteAdd(t, lr._uuid, spec);
  const update: Record<string, unknown> = {};
  if (existing.ip_prefix !== e.prefix) update['ip_prefix'] = e.prefix;
  if (existing.nexthop !== e.nexthop) update['nexthop'] = e.nexthop;
  if (e.row.output_port !== undefined && existing.output_port !== e.row.output_port)
    update['output_port'] = e.row.output_port;
  if (e.row.policy !== undefined && existing.policy !== e.row.policy)
    update['policy'] = e.row.policy;
  const bfd = bfdRef(t, e.bfd);
  if (bfd !== undefined && existing.bfd !== bfd) update['bfd'] = bfd;
  if (Object.keys(update).length > 0)
    t.update('Logical_Router_Static_Route', existing._uuid, update as never);
  for (const column of ['options', 'external_ids'] as const) {
    const given = e.row[column] ?? {};
    const now = existing[column];
    const changed = Object.fromEntries(Object.entries(given).filter(([k, v]) => now[k] !== v));
    t.setMapKeys('Logical_Router_Static_Route', existing._uuid, column, changed);
  }
  return existing._uuid;
}

/**
 * Remove static routes (`ovn-nbctl lr-route-del`): all of them (empty
 * filter), or those matching every given field (routes of the main table
 * unless `routeTable` is given). The BFD rows of removed routes are deleted
 * too, as `ovn-nbctl` does. Returns how many were removed.
 *
 * ```ts
 * lrRouteDel(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.3' });
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["static_routes","delete",["set",[["uuid","<r>"]]]]]}
 * ```
 * @throws NotFoundError when a prefix was given and no route matches (unless `ifExists`).
 */
export function lrRouteDel<DB extends NeedsOf<'lrRouteDel'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  filter?: RouteFilter,
  options?: DeleteOptions,
): number;
export function lrRouteDel(
  t: NbTxn,
  router: RouterRef,
  filter: RouteFilter = {},
  options: DeleteOptions = {},
): number {
  const lr = getNamed(t, 'Logical_Router', router);
  const policy =
    filter.policy === undefined
      ? undefined
      : checkEnum('Logical_Router_Static_Route.policy', filter.policy, ROUTE_POLICIES);
  const all = routesOf(t, lr);
  let victims: RouteRow[];
  const everything =
    filter.prefix === undefined &&
    filter.policy === undefined &&
    filter.nexthop === undefined &&
    filter.outputPort === undefined &&
    filter.routeTable === undefined;
  if (everything) {
    victims = all;
  } else {
    const prefix =
      filter.prefix === undefined ? undefined : normalizePrefix(filter.prefix, 'lrRouteDel prefix');
    const nexthop =
      filter.nexthop === undefined
        ? undefined
        : filter.nexthop === 'discard'
          ? 'discard'
          : normalizePrefix(filter.nexthop, 'lrRouteDel nexthop');
    const table = filter.routeTable ?? '';
    victims = all.filter(
      (r) =>
        (policy === undefined || (r.policy === 'src-ip') === (policy === 'src-ip')) &&
        (prefix === undefined || normalizedOrUndefined(r.ip_prefix) === prefix) &&
        (nexthop === undefined ||
          (r.nexthop === 'discard' ? 'discard' : normalizedOrUndefined(r.nexthop)) === nexthop) &&
        r.route_table === table &&
        (filter.outputPort === undefined || r.output_port === filter.outputPort),
    );
    if (victims.length === 0 && prefix !== undefined && !options.ifExists) {
      throw new NotFoundError(
        'static route',
        `(prefix ${prefix}, nexthop ${nexthop ?? 'any'}, policy ${policy ?? 'any'}, output port ${filter.outputPort ?? 'any'})`,
        `on router ${lr.name || lr._uuid}`,
      );
    }
  }
  t.removeFromSet(
    'Logical_Router',
    lr._uuid,
    'static_routes',
    victims.map((r) => r._uuid),
  );
  for (const r of victims) {
    if (r.bfd !== null && t.get('BFD', r.bfd) !== undefined) t.delete('BFD', r.bfd);
  }
  return victims.length;
}

/** The static routes of a router (by route table, then prefix). */
export function lrRouteList<DB extends NeedsOf<'lrRouteList'>>(
  t: NbTxn<DB>,
  router: RouterRef,
): RowIn<DB, 'Logical_Router_Static_Route'>[];
export function lrRouteList(t: NbTxn, router: RouterRef): RouteRow[] {
  const lr = getNamed(t, 'Logical_Router', router);
  return routesOf(t, lr).sort((a, b) =>
    a.route_table !== b.route_table
      ? a.route_table < b.route_table
        ? -1
        : 1
      : a.ip_prefix < b.ip_prefix
        ? -1
        : a.ip_prefix > b.ip_prefix
          ? 1
          : a.nexthop < b.nexthop
            ? -1
            : a.nexthop > b.nexthop
              ? 1
              : 0,
  );
}
