/**
 * Load balancers: VIPs and their backends, protocol, health checks and
 * `ip_port_mappings` (`ovn-nbctl lb-add`, `lb-del`, `lb-list`); attaching
 * them to switches and routers is `lb-attach.ts`.
 *
 * VIP keys are stored normalized as `ovn-nbctl` does (`10.0.0.10:80`,
 * `[fd00::10]:80`, `fd00::10`); backends are stored as given, after
 * checking that each is an address (with a port when the VIP has one) of the
 * VIP's family. Load balancer names are not unique in the schema: a name
 * several share is ambiguous.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  AlreadyExistsError,
  AmbiguousNameError,
  DuplicateNameError,
  InvalidAddressError,
  InvalidArgumentError,
  NotFoundError,
} from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { type IpFamily, parseIp } from './ip.js';
import {
  findNamed,
  getNamed,
  type LoadBalancerRef,
  namedTarget,
  type PortRef,
  rowsNamed,
} from './lookup.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkEnum, checkName, checkStringMap } from './validate.js';

/** Load balancer protocols. */
export const LB_PROTOCOLS = ['tcp', 'udp', 'sctp'] as const;
/** A load balancer protocol. */
export type LbProtocol = (typeof LB_PROTOCOLS)[number];

/** A parsed `IP[:PORT]` endpoint. */
export interface LbEndpoint {
  readonly family: IpFamily;
  /** The canonical address. */
  readonly ip: string;
  /** The port, if any. */
  readonly port: number | undefined;
  /** The normalized text (`ip`, `ip:port`, `[ip6]:port`). */
  readonly text: string;
}

/**
 * Parse `IP`, `IP:PORT`, `[IPv6]` or `[IPv6]:PORT`.
 * @returns undefined when `s` is none of these.
 */
export function parseLbEndpoint(s: string): LbEndpoint | undefined {
  if (typeof s !== 'string') return undefined;
  let host: string;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) {
    host = bracket[1]!;
    portText = bracket[2];
    if (parseIp(host)?.family !== 6) return undefined;
  } else if (parseIp(s) !== undefined) {
    host = s;
  } else {
    const m = /^([^:]+):(\d+)$/.exec(s);
    if (!m) return undefined;
    host = m[1]!;
    portText = m[2];
    if (parseIp(host)?.family !== 4) return undefined;
  }
  const ip = parseIp(host)!;
  let port: number | undefined;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^[1-9]\d*$/.test(portText) || port > 65535) return undefined;
  }
  const text =
    port === undefined ? ip.text : ip.family === 6 ? `[${ip.text}]:${port}` : `${ip.text}:${port}`;
  return { family: ip.family, ip: ip.text, port, text };
}

function checkVip(vip: string): LbEndpoint {
  const e = parseLbEndpoint(vip);
  if (e === undefined) {
    throw new InvalidAddressError(
      'load balancer VIP',
      String(vip),
      'expected IP, IP:PORT or [IPv6]:PORT',
      'Load_Balancer.vips',
    );
  }
  return e;
}

function checkBackends(vip: LbEndpoint, backends: string | readonly string[]): string {
  const list =
    typeof backends === 'string' ? backends.split(',').filter((b) => b !== '') : backends;
  if (!Array.isArray(list)) {
    throw new InvalidArgumentError(
      `Load_Balancer.vips:${vip.text}`,
      backends,
      'backends must be a list',
    );
  }
  for (const b of list) {
    const e = parseLbEndpoint(b);
    if (e === undefined || (vip.port !== undefined) !== (e.port !== undefined)) {
      throw new InvalidAddressError(
        'load balancer backend',
        String(b),
        vip.port !== undefined
          ? 'expected IP:PORT (the VIP has a port)'
          : 'expected an IP address (the VIP has no port)',
        `Load_Balancer.vips:${vip.text}`,
      );
    }
    if (e.family !== vip.family) {
      throw new InvalidAddressError(
        'load balancer backend',
        b,
        `IPv${e.family}, but the VIP is IPv${vip.family}`,
        `Load_Balancer.vips:${vip.text}`,
      );
    }
  }
  return list.join(',');
}

/** Options of {@link lbAdd}. */
export interface LbAddOptions extends CreateOptions {
  /** VIP → backends (a list, or OVN's comma-separated text). */
  readonly vips?: Readonly<Record<string, string | readonly string[]>> | undefined;
  /** The protocol of VIPs with a port (default `tcp`). */
  readonly protocol?: LbProtocol | undefined;
  /** `options`, e.g. `{ reject: 'true' }`. */
  readonly options?: Readonly<Record<string, string>> | undefined;
  /** `selection_fields`, e.g. `['ip_src', 'tp_src']`. */
  readonly selectionFields?: readonly string[] | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

function encodeVips(
  vips: Readonly<Record<string, string | readonly string[]>>,
  protocolGiven: boolean,
): Record<string, string> {
  if (vips === null || typeof vips !== 'object')
    throw new InvalidArgumentError('Load_Balancer.vips', vips, 'must be an object');
  const out: Record<string, string> = {};
  for (const [vip, backends] of Object.entries(vips)) {
    const e = checkVip(vip);
    if (e.port === undefined && protocolGiven) {
      throw new InvalidArgumentError(
        'Load_Balancer.protocol',
        vip,
        'a protocol is only meaningful for VIPs with a port',
      );
    }
    if (Object.hasOwn(out, e.text))
      throw new InvalidArgumentError('Load_Balancer.vips', vip, `VIP ${e.text} is given twice`);
    out[e.text] = checkBackends(e, backends);
  }
  return out;
}

/**
 * Create a load balancer (`ovn-nbctl lb-add`).
 *
 * ```ts
 * lbAdd(t, 'lb-web', { vips: { '10.0.0.10:80': ['10.0.0.5:8080', '10.0.0.6:8080'] } });
 * // {"op":"wait","table":"Load_Balancer","where":[["name","==","lb-web"]],…,"rows":[],"timeout":0}
 * // {"op":"insert","table":"Load_Balancer","row":{"name":"lb-web","protocol":"tcp",
 * //   "vips":["map",[["10.0.0.10:80","10.0.0.5:8080,10.0.0.6:8080"]]]},"uuid":"<lb>","uuid-name":"row0"}
 * ```
 * @throws AlreadyExistsError when a load balancer with this name exists
 *   (unless `mayExist`: add VIPs to it with {@link lbAddVip});
 *   InvalidAddressError for a bad VIP or backend.
 */
export function lbAdd<DB extends NeedsOf<'lbAdd'>>(
  t: NbTxn<DB>,
  name: string,
  options?: LbAddOptions,
): Uuid<'Load_Balancer'>;
export function lbAdd(t: NbTxn, name: string, options: LbAddOptions = {}): Uuid<'Load_Balancer'> {
  checkName('Load_Balancer.name', name);
  const protocol =
    options.protocol === undefined
      ? 'tcp'
      : checkEnum('Load_Balancer.protocol', options.protocol, LB_PROTOCOLS);
  const vips = encodeVips(options.vips ?? {}, options.protocol !== undefined);
  const opts =
    options.options === undefined
      ? undefined
      : checkStringMap('Load_Balancer.options', options.options);
  const externalIds =
    options.externalIds === undefined
      ? undefined
      : checkStringMap('Load_Balancer.external_ids', options.externalIds);
  const existing = rowsNamed(t, 'Load_Balancer', name);
  if (existing.length > 1)
    throw new AmbiguousNameError('load balancer', name, existing.map((r) => r._uuid).sort());
  if (existing[0] !== undefined) {
    if (options.mayExist) return existing[0]._uuid;
    throw new AlreadyExistsError(
      'load balancer',
      JSON.stringify(name),
      undefined,
      existing[0]._uuid,
    );
  }
  t.guardAbsent('Load_Balancer', 'name', name, () => new DuplicateNameError('load balancer', name));
  return t.insert('Load_Balancer', {
    name,
    protocol,
    ...(Object.keys(vips).length > 0 ? { vips } : {}),
    ...(opts !== undefined ? { options: opts } : {}),
    ...(options.selectionFields !== undefined
      ? { selection_fields: [...options.selectionFields] as never }
      : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete a load balancer (`ovn-nbctl lb-del`); switches and routers lose it.
 * It is removed from the load balancer groups that hold it first (their
 * `load_balancer` holds it weakly, but ovsdb-server 3.1 leaves a dangling
 * reference when the same transaction also changes another group and the
 * switch or router references to this one; skipped when the client does not
 * monitor `Load_Balancer_Group`).
 * @throws NotFoundError (unless `ifExists`); AmbiguousNameError.
 */
export function lbDel<DB extends NeedsOf<'lbDel'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  options?: DeleteOptions,
): void;
export function lbDel(t: NbTxn, lb: LoadBalancerRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Load_Balancer', lb, options);
  if (row === undefined) return;
  if (t.monitors('Load_Balancer_Group')) {
    for (const group of t.referrers('Load_Balancer_Group', 'load_balancer', row._uuid)) {
      t.removeFromSet('Load_Balancer_Group', group._uuid, 'load_balancer', [row._uuid]);
    }
  }
  t.delete('Load_Balancer', row._uuid);
}

/**
 * Read a load balancer by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined); AmbiguousNameError.
 */
export function lbGet<DB extends NeedsOf<'lbGet'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
): RowIn<DB, 'Load_Balancer'>;
export function lbGet<DB extends NeedsOf<'lbGet'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  options: DeleteOptions,
): RowIn<DB, 'Load_Balancer'> | undefined;
export function lbGet(
  t: NbTxn,
  lb: LoadBalancerRef,
  options: DeleteOptions = {},
): NbRow<'Load_Balancer'> | undefined {
  return options.ifExists ? findNamed(t, 'Load_Balancer', lb) : getNamed(t, 'Load_Balancer', lb);
}

/**
 * Add a VIP to a load balancer (`ovn-nbctl lb-add` on an existing one).
 *
 * ```ts
 * lbAddVip(t, 'lb-web', '10.0.0.10:443', ['10.0.0.5:8443']);
 * // {"op":"mutate","table":"Load_Balancer",…,"mutations":[["vips","delete",["set",["10.0.0.10:443"]]],
 * //   ["vips","insert",["map",[["10.0.0.10:443","10.0.0.5:8443"]]]]]}
 * ```
 * @throws AlreadyExistsError when the VIP exists (unless `mayExist`, which
 *   leaves its backends: use {@link lbSetVip} to replace them).
 */
export function lbAddVip<DB extends NeedsOf<'lbAddVip'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  vip: string,
  backends: string | readonly string[],
  options?: CreateOptions,
): void;
export function lbAddVip(
  t: NbTxn,
  lb: LoadBalancerRef,
  vip: string,
  backends: string | readonly string[],
  options: CreateOptions = {},
): void {
  const e = checkVip(vip);
  const value = checkBackends(e, backends);
  const row = getNamed(t, 'Load_Balancer', lb);
  if (Object.hasOwn(row.vips, e.text)) {
    if (options.mayExist) return;
    throw new AlreadyExistsError(
      'load balancer VIP',
      e.text,
      `in load balancer ${row.name}`,
      row._uuid,
    );
  }
  t.setMapKeys('Load_Balancer', row._uuid, 'vips', { [e.text]: value });
}

/** Set a VIP's backends, adding the VIP when missing (`ovn-nbctl --may-exist lb-add`). */
export function lbSetVip<DB extends NeedsOf<'lbSetVip'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  vip: string,
  backends: string | readonly string[],
): void;
export function lbSetVip(
  t: NbTxn,
  lb: LoadBalancerRef,
  vip: string,
  backends: string | readonly string[],
): void {
  const e = checkVip(vip);
  const value = checkBackends(e, backends);
  const row = getNamed(t, 'Load_Balancer', lb);
  if (row.vips[e.text] !== value)
    t.setMapKeys('Load_Balancer', row._uuid, 'vips', { [e.text]: value });
}

/**
 * Remove a VIP from a load balancer (`ovn-nbctl lb-del LB VIP`). The load
 * balancer stays, even without VIPs.
 * @throws NotFoundError when the VIP is not there (unless `ifExists`).
 */
export function lbDelVip<DB extends NeedsOf<'lbDelVip'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  vip: string,
  options?: DeleteOptions,
): void;
export function lbDelVip(
  t: NbTxn,
  lb: LoadBalancerRef,
  vip: string,
  options: DeleteOptions = {},
): void {
  const row = getNamed(t, 'Load_Balancer', lb);
  const key = parseLbEndpoint(vip)?.text ?? vip;
  const target = existing(
    Object.hasOwn(row.vips, key) ? row.vips[key] : undefined,
    options,
    () => new NotFoundError('load balancer VIP', vip, `in load balancer ${row.name}`),
  );
  if (target === undefined) return;
  t.setMapKeys('Load_Balancer', row._uuid, 'vips', { [key]: null });
}

/** A load balancer health check's options. */
export interface LbHealthCheckOptions {
  /** Seconds between checks. */
  readonly interval?: number | undefined;
  /** Seconds to wait for a reply. */
  readonly timeout?: number | undefined;
  /** Successes before a backend is up. */
  readonly success_count?: number | undefined;
  /** Failures before a backend is down. */
  readonly failure_count?: number | undefined;
}

/**
 * Add a health check for one of the load balancer's VIPs (its backends also
 * need `ip_port_mappings`, see {@link lbSetIpPortMapping}).
 *
 * ```ts
 * lbHealthCheckAdd(t, 'lb-web', '10.0.0.10:80', { interval: 5, timeout: 20, success_count: 3, failure_count: 3 });
 * // {"op":"insert","table":"Load_Balancer_Health_Check","row":{"vip":"10.0.0.10:80","options":["map",[["interval","5"],
 * //   ["timeout","20"],["success_count","3"],["failure_count","3"]]]},…}
 * // {"op":"mutate","table":"Load_Balancer",…,"mutations":[["health_check","insert",["set",[["named-uuid","row0"]]]]]}
 * ```
 * @throws NotFoundError when the VIP is not the load balancer's;
 *   AlreadyExistsError when it has a health check (unless `mayExist`).
 */
export function lbHealthCheckAdd<DB extends NeedsOf<'lbHealthCheckAdd'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  vip: string,
  options?: LbHealthCheckOptions,
  create?: CreateOptions,
): Uuid<'Load_Balancer_Health_Check'>;
export function lbHealthCheckAdd(
  t: NbTxn,
  lb: LoadBalancerRef,
  vip: string,
  options: LbHealthCheckOptions = {},
  create: CreateOptions = {},
): Uuid<'Load_Balancer_Health_Check'> {
  const e = checkVip(vip);
  const row = getNamed(t, 'Load_Balancer', lb);
  if (!Object.hasOwn(row.vips, e.text))
    throw new NotFoundError('load balancer VIP', e.text, `in load balancer ${row.name}`);
  const opts: Record<string, string> = {};
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined) continue;
    if (!['interval', 'timeout', 'success_count', 'failure_count'].includes(k)) {
      throw new InvalidArgumentError(
        `Load_Balancer_Health_Check.options:${k}`,
        v,
        'unknown health check option',
      );
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
      throw new InvalidArgumentError(
        `Load_Balancer_Health_Check.options:${k}`,
        v,
        'must be a positive integer',
      );
    }
    opts[k] = String(v);
  }
  const existing = row.health_check
    .map((u) => t.get('Load_Balancer_Health_Check', u))
    .find((h) => h?.vip === e.text);
  if (existing !== undefined) {
    if (create.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'load balancer health check',
      e.text,
      `in load balancer ${row.name}`,
      existing._uuid,
    );
  }
  const hc = t.insert('Load_Balancer_Health_Check', {
    vip: e.text,
    ...(Object.keys(opts).length > 0 ? { options: opts } : {}),
  });
  t.addToSet('Load_Balancer', row._uuid, 'health_check', [hc]);
  return hc;
}

/**
 * Remove a VIP's health check.
 * @throws NotFoundError (unless `ifExists`).
 */
export function lbHealthCheckDel<DB extends NeedsOf<'lbHealthCheckDel'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  vip: string,
  options?: DeleteOptions,
): void;
export function lbHealthCheckDel(
  t: NbTxn,
  lb: LoadBalancerRef,
  vip: string,
  options: DeleteOptions = {},
): void {
  const row = getNamed(t, 'Load_Balancer', lb);
  const key = parseLbEndpoint(vip)?.text ?? vip;
  const check = existing(
    row.health_check.map((u) => t.get('Load_Balancer_Health_Check', u)).find((h) => h?.vip === key),
    options,
    () => new NotFoundError('load balancer health check', vip, `in load balancer ${row.name}`),
  );
  if (check === undefined) return;
  t.removeFromSet('Load_Balancer', row._uuid, 'health_check', [check._uuid]);
}

/**
 * Say which port owns a backend IP and which source IP health checks use
 * (`ip_port_mappings:<backend>=<port>:<source>`); `null` removes the mapping.
 */
export function lbSetIpPortMapping<DB extends NeedsOf<'lbSetIpPortMapping'>>(
  t: NbTxn<DB>,
  lb: LoadBalancerRef,
  backendIp: string,
  mapping: { readonly port: PortRef; readonly sourceIp: string } | null,
): void;
export function lbSetIpPortMapping(
  t: NbTxn,
  lb: LoadBalancerRef,
  backendIp: string,
  mapping: { readonly port: PortRef; readonly sourceIp: string } | null,
): void {
  const ip = parseIp(backendIp);
  if (ip === undefined)
    throw new InvalidAddressError(
      'IP',
      backendIp,
      'not an IP address',
      'Load_Balancer.ip_port_mappings',
    );
  const row = getNamed(t, 'Load_Balancer', lb);
  if (mapping === null) {
    t.setMapKeys('Load_Balancer', row._uuid, 'ip_port_mappings', { [ip.text]: null });
    return;
  }
  const port = getNamed(t, 'Logical_Switch_Port', mapping.port).name;
  const src = parseIp(mapping.sourceIp);
  if (src === undefined || src.family !== ip.family) {
    throw new InvalidAddressError(
      ip.family === 4 ? 'IPv4' : 'IPv6',
      mapping.sourceIp,
      "not an address of the backend's family",
      'Load_Balancer.ip_port_mappings',
    );
  }
  const value = ip.family === 6 ? `${port}:[${src.text}]` : `${port}:${src.text}`;
  t.setMapKeys('Load_Balancer', row._uuid, 'ip_port_mappings', {
    [ip.family === 6 ? `[${ip.text}]` : ip.text]: value,
  });
}

/**
 * Every load balancer sorted by name, or only `lb` (`ovn-nbctl lb-list
 * [LB]`, which prints each with its protocol and VIPs).
 * @throws NotFoundError for an unknown `lb` (`ovn-nbctl` prints nothing).
 */
export function lbList<DB extends NeedsOf<'lbList'>>(
  t: NbTxn<DB>,
  lb?: LoadBalancerRef,
): RowIn<DB, 'Load_Balancer'>[];
export function lbList(t: NbTxn, lb?: LoadBalancerRef): NbRow<'Load_Balancer'>[] {
  if (lb !== undefined) return [getNamed(t, 'Load_Balancer', lb)];
  return t.rows('Load_Balancer').sort(byName);
}
