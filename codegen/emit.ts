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
} from 'ts-morph';

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

  /** The formatted text of a file made of `statements` (printed in one pass, then formatted). */
  emit(fileName: string, statements: readonly Statement[]): string {
    const file = this.#project.createSourceFile(
      fileName,
      { statements: [...statements] },
      { overwrite: true },
    );
    file.formatText(FORMAT_SETTINGS);
    const text = file.getFullText();
    this.#project.removeSourceFile(file);
    return text;
  }
}
