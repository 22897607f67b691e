/**
 * ovnkit's in-memory OVSDB server engine: a pure, synchronous `transact`
 * executor that behaves as ovsdb-server 3.1 does for everything a client can
 * observe in a reply and in the resulting database state.
 * @module
 */

export type { Clause, Condition, ConditionFunction } from './conditions.js';
export { evaluateCondition, parseCondition } from './conditions.js';
export { columnType, Database, type Row, rowToJs, rowToWire, TableStore } from './database.js';
export type {
  RowChange,
  TransactBlocked,
  TransactOptions,
  TransactOutcome,
  TransactResult,
  TxnChanges,
} from './executor.js';
export { executeTransaction } from './executor.js';
export type { Mutation, Mutator } from './mutations.js';
export { applyMutations, parseMutations } from './mutations.js';
export { OpError, type OpErrorJson } from './op-error.js';
export { formatG15, ovsJsonText, roundReal } from './ovs-json.js';
export type { Datum, DatumType, SymbolTable, UuidSymbol } from './values.js';
export { datumToWire, parseDatum } from './values.js';
