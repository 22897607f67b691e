/**
 * The documentation XML shipped in the `ovnkit` package (its `schema/`
 * directory), found by database name: `ovn-nb.xml` for `OVN_Northbound`,
 * `ovn-sb.xml` for `OVN_Southbound` and `vswitch.xml` for `Open_vSwitch`.
 * `ovnkit-codegen` uses them when `--docs` is not given.
 * @module
 */

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The shipped documentation file per database name. */
export const BUNDLED_DOCS: Readonly<Record<string, string>> = {
  OVN_Northbound: 'ovn-nb.xml',
  OVN_Southbound: 'ovn-sb.xml',
  Open_vSwitch: 'vswitch.xml',
};

/** Where the documentation of `database` is, or why there is none. */
export type BundledDocs =
  | { readonly found: true; readonly path: string }
  | { readonly found: false; readonly reason: string };

/**
 * The absolute path of the shipped documentation XML of `database` (the
 * schema's `name`), resolved from the installed `ovnkit` package.
 * `undefined` when no documentation is shipped for that name.
 */
export function bundledDocs(database: string): BundledDocs | undefined {
  const file = Object.hasOwn(BUNDLED_DOCS, database) ? BUNDLED_DOCS[database] : undefined;
  if (file === undefined) return undefined;
  let packageJson: string;
  try {
    packageJson = createRequire(import.meta.url).resolve('ovnkit/package.json');
  } catch {
    return { found: false, reason: `the ovnkit package, which ships ${file}, is not installed` };
  }
  const path = join(dirname(packageJson), 'schema', file);
  if (!existsSync(path)) return { found: false, reason: `${path} does not exist` };
  return { found: true, path };
}
