/**
 * Type tests of the validators' public types: `columnValidator` and
 * `rowValidator` return ovnkit's own `Validator` interface (no type of the
 * validation library behind it), with `parse`, `safeParse` and the Standard
 * Schema properties.
 */

import { describe, expectTypeOf, it } from 'vitest';
import { NB } from '../../src/nb/index.js';
import {
  columnValidator,
  rowValidator,
  type StandardValidatorProps,
  type ValidationError,
  type ValidationResult,
  type Validator,
} from '../../src/ovsdb/index.js';

const acl = NB.schema.tables['ACL']!;

describe('validators', () => {
  it('columnValidator and rowValidator return a Validator', () => {
    expectTypeOf(columnValidator('ACL', acl.columns['priority']!)).toEqualTypeOf<
      Validator<unknown>
    >();
    expectTypeOf(rowValidator(acl, 'insert')).toEqualTypeOf<Validator<Record<string, unknown>>>();
  });

  it('parse returns the value; safeParse narrows on success', () => {
    const v = rowValidator(acl, 'update');
    expectTypeOf(v.parse).returns.toEqualTypeOf<Record<string, unknown>>();
    const r = v.safeParse({});
    expectTypeOf(r).toEqualTypeOf<ValidationResult<Record<string, unknown>>>();
    if (r.success) expectTypeOf(r.data).toEqualTypeOf<Record<string, unknown>>();
    else expectTypeOf(r.error).toEqualTypeOf<ValidationError>();
    expectTypeOf(r.error?.issues[0]?.message).toEqualTypeOf<string | undefined>();
    expectTypeOf(v['~standard']).toEqualTypeOf<StandardValidatorProps<Record<string, unknown>>>();
  });

  it('has no zod-specific members', () => {
    const v = columnValidator('ACL', acl.columns['action']!);
    // @ts-expect-error refine is not part of the Validator interface
    v.refine;
    // @ts-expect-error neither is _zod
    v._zod;
    expectTypeOf<keyof Validator<unknown>>().toEqualTypeOf<
      'description' | 'parse' | 'safeParse' | '~standard'
    >();
  });
});
