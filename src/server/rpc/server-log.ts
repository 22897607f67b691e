/**
 * The log of an in-memory OVSDB server, in ovsdb-server's line format:
 * `<time>|<sequence>|<module>|<level>|<text>`, e.g.
 * `2024-05-01T10:00:00.000Z|00007|jsonrpc|WARN|unix#3: received bad JSON-RPC message: …`.
 * It records the events a client can cause (bad messages, dropped
 * connections, probes) with ovsdb-server's wording, so tests can look for
 * the same lines with either server.
 * @module
 */

import { appendFileSync } from 'node:fs';

/** A log level, as ovsdb-server writes it. */
export type LogLevel = 'DBG' | 'INFO' | 'WARN' | 'ERR';

/** Options of {@link ServerLog}. */
export interface ServerLogOptions {
  /** Also append every line to this file. */
  readonly file?: string | undefined;
  /** Also pass every line to this function (e.g. `console.error`). */
  readonly sink?: ((line: string) => void) | undefined;
  /** How many lines to keep in memory (default 10,000; older lines are dropped). */
  readonly maxLines?: number | undefined;
}

/** An append-only server log. */
export class ServerLog {
  private seq = 0;
  private readonly lines: string[] = [];
  private readonly maxLines: number;

  constructor(private readonly options: ServerLogOptions = {}) {
    this.maxLines = options.maxLines ?? 10_000;
  }

  /** Append one line. */
  write(module: string, level: LogLevel, text: string): void {
    this.seq++;
    const line = `${new Date().toISOString()}|${String(this.seq).padStart(5, '0')}|${module}|${level}|${text}`;
    this.lines.push(line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
    if (this.options.file !== undefined) {
      try {
        appendFileSync(this.options.file, `${line}\n`);
      } catch {
        // The in-memory copy stays authoritative.
      }
    }
    this.options.sink?.(line);
  }

  /** The lines kept, newline-terminated. */
  text(): string {
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }
}
