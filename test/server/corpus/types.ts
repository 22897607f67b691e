/**
 * The shape of a differential corpus case.
 * @module
 */

/**
 * A named sequence of `transact` requests, run in order on an empty database
 * by both the engine and a real ovsdb-server. Each entry is the request's
 * params after the database name.
 */
export interface CorpusCase {
  readonly name: string;
  readonly txns: readonly (readonly unknown[])[];
}
