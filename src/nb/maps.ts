/**
 * Map columns (`options`, `external_ids`, `other_config`, DNS `records`,
 * DHCP `options`, …): the one rule every DSL setter follows.
 *
 * - **A setter merges.** `lsSetOtherConfig`, `lrSetOptions`,
 *   `lspSetOptions`, `lspSet({ options })`, `lrpSet({ options })`,
 *   `dhcpOptionsSetOptions`, `lsSetDnsRecords`, … set the keys given and
 *   keep the others; a key given as `null` is removed.
 * - **`{ replace: true }` replaces** the whole map with the keys given (a
 *   `null` key is simply not there), as `ovn-nbctl lsp-set-options` and
 *   `dhcp-options-set-options` do.
 * - **Creating** (`…Add`, `…Create`) writes the maps given, as they are.
 * - **Converging** (`lrNatEnsure`) merges the maps given, like a setter;
 *   `reconcilePortDhcpOptions` makes the port's own DHCP row equal to the
 *   desired one (its options included: it owns that row).
 * - Per-key setters (`lbSetVip`, `lbAddVip`, `lbDelVip`,
 *   `lbSetIpPortMapping`) change their one key.
 *
 * A merge is one `mutate` of the column (a `delete` of the keys given, an
 * `insert` of the new pairs), so that it never overwrites keys another
 * client set meanwhile; a replace is one `update` of the column.
 * @module
 */

import type { NbTable, NbTxn } from './txn.js';

/** Options of every setter of a map column. */
export interface SetOptions {
  /**
   * Replace the whole map with the keys given (those given as `null` are
   * left out), instead of merging them into it (see the module documentation).
   */
  readonly replace?: boolean | undefined;
}

/** Keys to set (a string) or remove (`null`); `undefined` keys are ignored. */
export type MapPatch = Readonly<Record<string, string | null | undefined>>;

/** The keys of `patch` set to a string (a plain object, own members only). */
export function setKeysOf(patch: MapPatch): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(patch)) {
    if (typeof v === 'string')
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/**
 * Write `patch` into map column `column` of row `uuid` by the rule (see the
 * module documentation): merge it, or with `replace` make the column exactly
 * its string keys.
 */
export function writeMap(
  t: NbTxn,
  table: NbTable,
  uuid: string,
  column: string,
  patch: MapPatch,
  options: SetOptions = {},
): void {
  if (options.replace === true) {
    t.update(table, uuid, { [column]: setKeysOf(patch) } as never);
    return;
  }
  t.setMapKeys(table, uuid, column, patch);
}

/** The value of a map column after `patch` (merged, or replacing it with `replace`). */
export function patchedMap(
  current: Readonly<Record<string, string>>,
  patch: MapPatch,
  options: SetOptions = {},
): Record<string, string> {
  if (options.replace === true) return setKeysOf(patch);
  const out = setKeysOf(current);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === 'string')
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}
