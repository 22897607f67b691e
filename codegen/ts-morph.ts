/**
 * The parts of ts-morph the generator uses, loaded once. ts-morph is a
 * CommonJS bundle of about 1 MB (plus TypeScript itself); loading it with
 * `require` skips the scan for named exports that Node runs when an ES module
 * imports CommonJS, which takes a noticeable part of the generator's start-up.
 * @module
 */

import { createRequire } from 'node:module';
import type * as TsMorph from 'ts-morph';

const tsMorph = createRequire(import.meta.url)('ts-morph') as typeof TsMorph;

/** ts-morph's values (see its documentation). */
export const {
  IndentationText,
  NewLineKind,
  Project,
  QuoteKind,
  StructureKind,
  ts,
  VariableDeclarationKind,
} = tsMorph;

export type {
  ExportDeclarationStructure,
  FormatCodeSettings,
  ImportDeclarationStructure,
  InterfaceDeclarationStructure,
  OptionalKind,
  PropertySignatureStructure,
  StatementStructures,
  TypeAliasDeclarationStructure,
  VariableStatementStructure,
  WriterFunction,
} from 'ts-morph';
