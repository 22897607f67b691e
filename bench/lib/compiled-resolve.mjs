/**
 * The resolve hook of `compiled.mjs`: a module that resolves to a
 * TypeScript file under the repository's `src/` is loaded from the same
 * path in the compiled copy instead (`.ts` → `.js`).
 * @module
 */

let src = '';
let out = '';

/** Receives the two directory URLs from `register`. */
export function initialize(data) {
  src = `${data.src}/`;
  out = `${data.out}/`;
}

/** Send `src/**.ts` to the compiled `.js`. */
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (src !== '' && r.url.startsWith(src) && r.url.endsWith('.ts') && !r.url.endsWith('.d.ts')) {
    return { ...r, url: `${out}${r.url.slice(src.length, -3)}.js`, format: 'module' };
  }
  return r;
}
