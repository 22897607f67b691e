/**
 * Meters: create (with one band, as `ovn-nbctl` does, or several), delete
 * one or all, list (`ovn-nbctl meter-add`, `meter-del`, `meter-list`).
 * Meters rate-limit ACL logging (`aclAdd(…, { meter })`) and control-plane
 * traffic (CoPP); they are named, and the name is unique (a schema index):
 * lookups use the index (`t.lookup`), not a scan.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkEnum, checkIntRange, checkName, checkStringMap } from './validate.js';

/** Meter units: kilobits or packets per second. */
export const METER_UNITS = ['kbps', 'pktps'] as const;
/** A meter unit. */
export type MeterUnitName = (typeof METER_UNITS)[number];
/** Meter band actions. */
export const METER_BAND_ACTIONS = ['drop'] as const;
/** A meter band action. */
export type MeterBandActionName = (typeof METER_BAND_ACTIONS)[number];

/** The largest rate and burst of a band. */
export const METER_UINT32_MAX = 4294967295;

/** One band of a meter. */
export interface MeterBandSpec {
  /** What to do with packets above the rate (`drop`, the default). */
  readonly action?: MeterBandActionName | undefined;
  /** The rate, in the meter's unit (1..4294967295). */
  readonly rate: number;
  /** The burst, kilobits or packets (0..4294967295; 0, the default, lets the switch choose). */
  readonly burst?: number | undefined;
}

interface MeterCommon {
  /** `kbps` or `pktps`: the unit of the rates (and bursts). */
  readonly unit: MeterUnitName;
  /** Meter each logical flow on its own (`--fair`) rather than share the meter among them. */
  readonly fair?: boolean | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/**
 * A meter: one band (`action`, `rate`, `burst`, as `ovn-nbctl meter-add`
 * takes them) or several (`bands`).
 */
export type MeterSpec = MeterCommon &
  (
    | (MeterBandSpec & { readonly bands?: undefined })
    | {
        readonly bands: readonly MeterBandSpec[];
        readonly action?: undefined;
        readonly rate?: undefined;
        readonly burst?: undefined;
      }
  );

function checkBand(
  field: string,
  band: MeterBandSpec,
): {
  action: MeterBandActionName;
  rate: number;
  burst_size: number;
} {
  if (band === null || typeof band !== 'object')
    throw new InvalidArgumentError(field, band, 'must be an object');
  return {
    action: checkEnum(`${field}.action`, band.action ?? 'drop', METER_BAND_ACTIONS),
    rate: checkIntRange(`${field}.rate`, band.rate, 1, METER_UINT32_MAX),
    burst_size:
      band.burst === undefined
        ? 0
        : checkIntRange(`${field}.burst`, band.burst, 0, METER_UINT32_MAX),
  };
}

/** The meter `ref` (a UUID or a name), by the table's name index. */
function findMeter(t: NbTxn, ref: string): NbRow<'Meter'> | undefined {
  checkName('Meter.name', ref);
  if (isUuid(ref)) {
    const row = t.get('Meter', ref);
    if (row !== undefined) return row;
  }
  return t.lookup('Meter', { name: ref });
}

/**
 * Create a meter (`ovn-nbctl [--fair] meter-add NAME ACTION RATE UNIT [BURST]`).
 *
 * ```ts
 * meterAdd(t, 'acl-log', { action: 'drop', rate: 100, unit: 'pktps', burst: 10, fair: true });
 * // {"op":"insert","table":"Meter_Band","row":{"action":"drop","burst_size":10,"rate":100},"uuid-name":"row0",…}
 * // {"op":"insert","table":"Meter","row":{"bands":["named-uuid","row0"],"fair":true,"name":"acl-log","unit":"pktps"},…}
 * ```
 * @throws AlreadyExistsError when a meter has the name (unless `mayExist`:
 *   it is then returned as is); InvalidArgumentError for a name that starts
 *   with `__` (reserved for OVN), a bad unit or action, no band;
 *   OutOfRangeError for a rate or burst out of range.
 */
export function meterAdd<DB extends NeedsOf<'meterAdd'>>(
  t: NbTxn<DB>,
  name: string,
  spec: MeterSpec,
  options?: CreateOptions,
): Uuid<'Meter'>;
export function meterAdd(
  t: NbTxn,
  name: string,
  spec: MeterSpec,
  options: CreateOptions = {},
): Uuid<'Meter'> {
  checkName('Meter.name', name);
  if (name.startsWith('__'))
    throw new InvalidArgumentError('Meter.name', name, 'names that begin with "__" are reserved');
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('Meter', spec, 'must be an object');
  const unit = checkEnum('Meter.unit', spec.unit, METER_UNITS);
  let bands: ReturnType<typeof checkBand>[];
  if (spec.bands !== undefined) {
    if (spec.rate !== undefined || spec.burst !== undefined || spec.action !== undefined) {
      throw new InvalidArgumentError('Meter', spec, 'give either bands or one band (rate, …)');
    }
    if (!Array.isArray(spec.bands) || spec.bands.length === 0)
      throw new InvalidArgumentError('Meter.bands', spec.bands, 'must be a non-empty list');
    bands = spec.bands.map((b, i) => checkBand(`Meter.bands[${i}]`, b));
  } else {
    bands = [checkBand('Meter', spec)];
  }
  if (spec.fair !== undefined && typeof spec.fair !== 'boolean')
    throw new InvalidArgumentError('Meter.fair', spec.fair, 'must be a boolean');
  const externalIds =
    spec.externalIds === undefined
      ? undefined
      : checkStringMap('Meter.external_ids', spec.externalIds);
  const existing = findMeter(t, name);
  if (existing !== undefined && existing.name === name) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError('meter', JSON.stringify(name), undefined, existing._uuid);
  }
  const bandRefs = bands.map((b) => t.insert('Meter_Band', b));
  return t.insert('Meter', {
    name,
    unit,
    bands: bandRefs,
    ...(spec.fair !== undefined ? { fair: spec.fair } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete a meter by name or UUID (`ovn-nbctl meter-del NAME`), or every
 * meter when none is named (`ovn-nbctl meter-del`). Its bands go with it.
 * Returns how many were deleted.
 * @throws NotFoundError for a meter that does not exist (unless `ifExists`).
 */
export function meterDel<DB extends NeedsOf<'meterDel'>>(
  t: NbTxn<DB>,
  meter?: string,
  options?: DeleteOptions,
): number;
export function meterDel(t: NbTxn, meter?: string, options: DeleteOptions = {}): number {
  if (meter === undefined) {
    const all = t.rows('Meter');
    for (const m of all) t.delete('Meter', m._uuid);
    return all.length;
  }
  const row = existing(findMeter(t, meter), options, () => new NotFoundError('meter', meter));
  if (row === undefined) return 0;
  t.delete('Meter', row._uuid);
  return 1;
}

/** Every meter, sorted by name (`ovn-nbctl meter-list`); `bands` holds the UUIDs of its Meter_Band rows. */
export function meterList<DB extends NeedsOf<'meterList'>>(t: NbTxn<DB>): RowIn<DB, 'Meter'>[];
export function meterList(t: NbTxn): NbRow<'Meter'>[] {
  return t.rows('Meter').sort(byName);
}
