/**
 * Turning statement structures into the text of a generated file: each file
 * is printed by ts-morph into an in-memory project, formatted by the
 * TypeScript formatter with {@link FORMAT_SETTINGS}, and read back. Nothing
 * is type-checked and nothing touches the disk.
 * @module
 */

import {
  type FormatCodeSettings,
  IndentationText,
  NewLineKind,
  Project,
  QuoteKind,
  type StatementStructures,
  ts,
  type WriterFunction,
} from './ts-morph.js';

/** How the TypeScript formatter lays out generated files. */
export const FORMAT_SETTINGS: Readonly<FormatCodeSettings> = Object.freeze({
  baseIndentSize: 0,
  indentSize: 2,
  tabSize: 2,
  convertTabsToSpaces: true,
  newLineCharacter: '\n',
  indentStyle: ts.IndentStyle.Smart,
  trimTrailingWhitespace: true,
  ensureNewLineAtEndOfFile: true,
  semicolons: ts.SemicolonPreference.Insert,
  insertSpaceAfterCommaDelimiter: true,
  insertSpaceAfterSemicolonInForStatements: true,
  insertSpaceBeforeAndAfterBinaryOperators: true,
  insertSpaceAfterConstructor: false,
  insertSpaceAfterKeywordsInControlFlowStatements: true,
  insertSpaceAfterFunctionKeywordForAnonymousFunctions: true,
  insertSpaceAfterOpeningAndBeforeClosingNonemptyParenthesis: false,
  insertSpaceAfterOpeningAndBeforeClosingNonemptyBrackets: false,
  insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true,
  insertSpaceAfterOpeningAndBeforeClosingEmptyBraces: false,
  insertSpaceAfterOpeningAndBeforeClosingTemplateStringBraces: false,
  insertSpaceAfterOpeningAndBeforeClosingJsxExpressionBraces: false,
  insertSpaceAfterTypeAssertion: false,
  insertSpaceBeforeFunctionParenthesis: false,
  insertSpaceBeforeTypeAnnotation: false,
  placeOpenBraceOnNewLineForFunctions: false,
  placeOpenBraceOnNewLineForControlBlocks: false,
  indentMultiLineObjectLiteralBeginningOnBlankLine: false,
  indentSwitchCase: true,
});

/** One statement of a generated file: a structure, or text (e.g. a comment). */
export type Statement = string | WriterFunction | StatementStructures;

/**
 * Prints generated files. One emitter holds one in-memory ts-morph project;
 * a generator run creates one and emits every file through it.
 */
export class SourceEmitter {
  readonly #project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    skipFileDependencyResolution: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Single,
      newLineKind: NewLineKind.LineFeed,
      useTrailingCommas: true,
    },
  });

  /** How many files were emitted; each gets its own directory in the project. */
  #count = 0;

  /** The formatted text of a file made of `statements` (printed in one pass, then formatted). */
  emit(fileName: string, statements: readonly Statement[]): string {
    // A path is never reused: the language service caches the last file it
    // formatted by path and version, and a new file at an old path could be
    // taken for the old one.
    const path = `/${++this.#count}/${fileName}`;
    const file = this.#project.createSourceFile(path, { statements: [...statements] });
    file.formatText(FORMAT_SETTINGS);
    const text = file.getFullText();
    // Drop the file so the project holds one file at a time.
    this.#project.removeSourceFile(file);
    return text;
  }
}
