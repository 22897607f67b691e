/**
 * The match language's tree: {@link MatchExpr}, what the builder (`expr.ts`)
 * makes, the parser (`parser.ts`) reads and the checker (`check.ts`) checks.
 * @module
 */

/** A comparison operator. `<`, `<=`, `>`, `>=` take one value; `==` and `!=` also take a set. */
export type MatchOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** A string literal, e.g. a port name: `"web-1"`. */
export type MatchStringValue = { readonly type: 'string'; readonly value: string };
/** A numeric constant as OVN writes it: `22`, `0x1f`, `10.0.0.0/24`, `fd00::1`, `00:00:00:00:00:01`. */
export type MatchConstant = { readonly type: 'constant'; readonly text: string };
/** An address set reference: `$name` (integer constants). */
export type MatchAddressSetRef = { readonly type: 'addressSet'; readonly name: string };
/** A port group reference: `@name` (port names: strings). */
export type MatchPortGroupRef = { readonly type: 'portGroup'; readonly name: string };

/** A value on the right of a comparison. */
export type MatchValue = MatchStringValue | MatchConstant | MatchAddressSetRef | MatchPortGroupRef;

/** A match expression tree. */
export type MatchExpr =
  | { readonly type: 'and'; readonly terms: readonly MatchExpr[] }
  | { readonly type: 'or'; readonly terms: readonly MatchExpr[] }
  | { readonly type: 'not'; readonly term: MatchExpr }
  /** The constants `1` (true) and `0` (false). */
  | { readonly type: 'bool'; readonly value: boolean }
  /** A 1-bit field or predicate on its own, e.g. `ip4`, `tcp`, `ct.new`. */
  | { readonly type: 'field'; readonly field: string }
  /** `field op value` or `field op {v1, v2, …}`. */
  | {
      readonly type: 'compare';
      readonly field: string;
      readonly op: MatchOperator;
      readonly value: MatchValue | readonly MatchValue[];
    };
