/**
 * The error objects a `transact` reply carries, shaped as ovsdb-server shapes
 * them: `{"syntax": <json text>, "details": <text>, "error": <tag>}`, where
 * `details` and `syntax` are present only when the server gives them.
 * @module
 */

import { ovsJsonText } from '../../ovsdb/values/ovs-text.js';

/** The JSON of one error entry in a `transact` result array. */
export interface OpErrorJson {
  readonly error: string;
  readonly details?: string;
  readonly syntax?: string;
}

/**
 * An error raised while executing or committing a transaction. `error` is the
 * OVSDB error tag (`constraint violation`, `syntax error`, …); `syntax`, when
 * present, is the offending JSON serialized as ovsdb-server does.
 */
export class OpError extends Error {
  override name = 'OpError';
  constructor(
    readonly error: string,
    readonly details: string | undefined,
    readonly syntax?: string | undefined,
  ) {
    super(details === undefined ? error : `${error}: ${details}`);
  }

  /**
   * The result-array entry for this error, its members in the order
   * ovsdb-server writes them (`ovsdb_error_to_json` puts `error`, `details`,
   * `syntax`; the object is written in its hash order).
   */
  toJson(): OpErrorJson {
    if (this.details === undefined) {
      return this.syntax === undefined
        ? { error: this.error }
        : { syntax: this.syntax, error: this.error };
    }
    return this.syntax === undefined
      ? { details: this.details, error: this.error }
      : { syntax: this.syntax, details: this.details, error: this.error };
  }
}

/**
 * A syntax-class error about `json` (OVS's `ovsdb_syntax_error`): tag
 * `syntax error` unless `tag` is given, with the JSON echoed in `syntax`.
 * Pass `json` as `undefined` for no `syntax` member.
 */
export function syntaxError(json: unknown, tag: string | undefined, details: string): OpError {
  return new OpError(
    tag ?? 'syntax error',
    details,
    json === undefined ? undefined : ovsJsonText(json),
  );
}
