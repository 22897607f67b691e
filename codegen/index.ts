/**
 * The ovnkit code generator: typed models from OVSDB schemas.
 *
 * ```ts
 * import { generate, writeGenerated } from 'ovnkit-codegen';
 *
 * const files = generate({ schema: readFileSync('ovn-nb.ovsschema', 'utf8'), name: 'NB' });
 * writeGenerated('src/nb', files);
 * ```
 * @module
 */

export {
  type DatabaseDocs,
  type DocBlock,
  type DocItem,
  type KeyDoc,
  parseDocs,
  type TableDoc,
} from './docs.js';
export {
  type CheckResult,
  checkGenerated,
  GENERATED_MARKER,
  type WriteResult,
  writeGenerated,
} from './files.js';
export { DEFAULT_OVSDB_IMPORT, type GenerateOptions, generate } from './generate.js';
export { defaultModelName, pascalCase } from './names.js';
export type { OvsdbImports } from './render.js';
export { XmlError } from './xml.js';
