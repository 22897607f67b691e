/**
 * The value checks of `value-checks.ts` wrapped as {@link Validator}s
 * ({@link columnValidator}, {@link rowValidator}: `parse`, `safeParse` and
 * the Standard Schema interface), typed by this module's own small
 * interfaces so that the declarations of the validation library behind them
 * stay out of the package's types. The checks themselves are re-exported
 * from here.
 * @module
 */

import { z } from 'zod';
import type { ColumnSchema, TableSchema } from '../schema/schema-types.js';
import {
  columnValueProblem,
  describeColumnType,
  type RowMode,
  rowProblems,
} from './value-checks.js';

export {
  columnValueProblem,
  describeColumnType,
  type RowMode,
  validateColumnValue,
  validateRow,
} from './value-checks.js';

/** One problem a {@link Validator} found: the broken rule, and where. */
export interface ValidationIssue {
  /** The broken rule, e.g. `integer 40000 is above maxInteger 32767`. */
  readonly message: string;
  /** Where: `[]` for the value itself, `[column]` for a column of a row. */
  readonly path: readonly PropertyKey[];
}

/** The error a {@link Validator} throws or returns: every problem it found. */
export interface ValidationError extends Error {
  readonly issues: readonly ValidationIssue[];
}

/** What {@link Validator.safeParse} returns: the value, or the problems. */
export type ValidationResult<T> =
  | { readonly success: true; readonly data: T; readonly error?: undefined }
  | { readonly success: false; readonly error: ValidationError; readonly data?: undefined };

/**
 * The result of {@link StandardValidatorProps.validate} (the Standard Schema
 * interface, v1): the value, or the problems.
 */
export type StandardValidationResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] };

/** A problem in the Standard Schema interface (v1): a path segment may be `{ key }`. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** The Standard Schema (v1) properties of a {@link Validator}. */
export interface StandardValidatorProps<T> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (
    value: unknown,
  ) => StandardValidationResult<T> | Promise<StandardValidationResult<T>>;
}

/**
 * A check of values against a column or row of the schema, in the shape of
 * a schema of the common validation libraries: `parse` returns the value
 * unchanged or throws a {@link ValidationError}; `safeParse` returns either;
 * `~standard` is the Standard Schema interface (v1), which form and
 * validation libraries accept.
 */
export interface Validator<T> {
  /** What the validator checks, e.g. `ACL.priority: integer 0–32767` (absent for rows). */
  readonly description?: string | undefined;
  /** `value` unchanged when valid. @throws ValidationError listing every problem. */
  parse(value: unknown): T;
  /** `{ success: true, data }` when valid, else `{ success: false, error }`. */
  safeParse(value: unknown): ValidationResult<T>;
  readonly '~standard': StandardValidatorProps<T>;
}

// A zod schema, seen through the Validator interface (the compiler checks that it fits).
function asValidator<T>(schema: z.ZodType<T>): Validator<T> {
  return schema;
}

const columnValidators = new WeakMap<ColumnSchema, Map<string, Validator<unknown>>>();

/**
 * A validator accepting exactly the valid JS values of `column` (cached per
 * column). Its issues carry the reason as message, e.g.
 * `"foo" is not one of allow, allow-related, ...`.
 * @param table - the table name, recorded in the validator's description.
 */
export function columnValidator(table: string, column: ColumnSchema): Validator<unknown> {
  let byTable = columnValidators.get(column);
  if (byTable === undefined) {
    byTable = new Map();
    columnValidators.set(column, byTable);
  }
  let validator = byTable.get(table);
  if (validator === undefined) {
    const check = (v: unknown) => columnValueProblem(column, v);
    validator = asValidator(
      z
        .unknown()
        .superRefine((v, ctx) => {
          const reason = check(v);
          if (reason !== undefined) ctx.addIssue({ code: 'custom', message: reason, input: v });
        })
        .describe(`${table}.${column.name}: ${describeColumnType(column)}`),
    );
    byTable.set(table, validator);
  }
  return validator;
}

const rowValidators = new WeakMap<
  TableSchema,
  Partial<Record<RowMode, Validator<Record<string, unknown>>>>
>();

/**
 * A validator for a row written by `insert` or `update` (cached per table and
 * mode): every present column must be valid; unknown columns and `_uuid` /
 * `_version` are rejected; `update` also rejects immutable columns. Members
 * whose value is `undefined` count as absent. Issues have the column as path.
 */
export function rowValidator(
  table: TableSchema,
  mode: RowMode,
): Validator<Record<string, unknown>> {
  let byMode = rowValidators.get(table);
  if (byMode === undefined) {
    byMode = {};
    rowValidators.set(table, byMode);
  }
  let validator = byMode[mode];
  if (validator === undefined) {
    validator = asValidator(
      z.custom<Record<string, unknown>>().superRefine((row, ctx) => {
        for (const p of rowProblems(table, mode, row, true)) {
          ctx.addIssue({
            code: 'custom',
            message: p.reason,
            input: p.value,
            path: p.column === '' ? [] : [p.column],
          });
        }
      }),
    );
    byMode[mode] = validator;
  }
  return validator;
}
