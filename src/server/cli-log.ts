/**
 * Where `ovnkit-server` writes its log, with Open vSwitch's `-v` / `--verbose`
 * and `vlog/set` specs (`lib/vlog.c`): `[module][:destination][:level]` in
 * any order, separated by `:`, `,` or spaces, `ANY` for every module or
 * destination, and `dbg` when no level is given (`-v` alone: everything at
 * `dbg`). Destinations are `console` (stderr), `file` (`--log-file`) and
 * `syslog` (accepted, never written). Levels are `off`, `emer`, `err`,
 * `warn`, `info` and `dbg`.
 *
 * The file gets `info` and above by default, as with ovsdb-server. The
 * console is off by default, where ovsdb-server writes `info` and above
 * (`-vconsole:info` gives its behaviour). Lines have ovsdb-server's
 * format: `<time>|<seq>|<module>|<LEVEL>|<text>` (the console's time to the
 * second, the file's to the millisecond).
 * @module
 */

import { appendFileSync } from 'node:fs';

const LEVELS = ['off', 'emer', 'err', 'warn', 'info', 'dbg'] as const;
const DESTINATIONS = ['console', 'syslog', 'file'] as const;
type Destination = (typeof DESTINATIONS)[number];

/** The level of each destination, per module (and for every other module). */
export class VlogLevels {
  private readonly any: Record<Destination, number> = { console: 0, syslog: 4, file: 4 };
  private readonly modules = new Map<string, Record<Destination, number>>();

  /**
   * Apply one spec (undefined: everything at `dbg`). Returns the error
   * ovsdb-server would print, or undefined.
   */
  apply(spec: string | undefined): string | undefined {
    if (spec === undefined) {
      this.set(undefined, undefined, 5);
      return undefined;
    }
    const words = spec.split(/[ ,:\t]+/).filter((w) => w !== '');
    if (words[0]?.toLowerCase() === 'pattern' || words[0]?.toLowerCase() === 'facility') {
      return `"${words[0]}" settings are not supported by ovnkit-server`;
    }
    let module: string | undefined;
    let destination: Destination | undefined;
    let level: number | undefined;
    for (const word of words) {
      const w = word.toLowerCase();
      if (w === 'any') continue;
      const d = DESTINATIONS.indexOf(w as Destination);
      const l = LEVELS.indexOf(w as (typeof LEVELS)[number]);
      if (d >= 0) {
        if (destination !== undefined) return 'cannot specify multiple destinations';
        destination = DESTINATIONS[d];
      } else if (l >= 0) {
        if (level !== undefined) return 'cannot specify multiple levels';
        level = l;
      } else if (/^[a-z_][a-z0-9_]*$/.test(w)) {
        if (module !== undefined) return 'cannot specify multiple modules';
        module = w;
      } else {
        return `no destination, level, or module "${word}"`;
      }
    }
    this.set(module, destination, level ?? 5);
    return undefined;
  }

  /** Whether a line of `module` at `level` (`DBG`, `INFO`, `WARN`, `ERR`, `EMER`) goes to `destination`. */
  enabled(module: string, level: string, destination: Destination): boolean {
    const rank = LEVELS.indexOf(level.toLowerCase() as (typeof LEVELS)[number]);
    const levels = this.modules.get(module) ?? this.any;
    return rank > 0 && rank <= levels[destination];
  }

  private set(
    module: string | undefined,
    destination: Destination | undefined,
    level: number,
  ): void {
    const targets: Record<Destination, number>[] = [];
    if (module === undefined) {
      targets.push(this.any, ...this.modules.values());
    } else {
      let m = this.modules.get(module);
      if (m === undefined) {
        m = { ...this.any };
        this.modules.set(module, m);
      }
      targets.push(m);
    }
    for (const t of targets) {
      for (const d of DESTINATIONS)
        if (destination === undefined || d === destination) t[d] = level;
    }
  }
}

/** Routes server log lines to the console and the log file by their module and level. */
export class LogRouter {
  private consoleOpen = true;

  constructor(
    /** The levels in force (changed by `vlog/set`). */
    readonly levels: VlogLevels,
    /** The log file, with `--log-file`. */
    readonly file: string | undefined,
    private readonly stderr: (text: string) => void,
  ) {}

  /** One line in ovsdb-server's format, as the server's log writes it. */
  line(line: string): void {
    const parts = line.split('|', 5);
    const module = parts[2] ?? '';
    const level = parts[3] ?? 'INFO';
    if (this.consoleOpen && this.levels.enabled(module, level, 'console')) {
      // The console's timestamps are to the second.
      this.stderr(`${line.replace(/^([^|]*?)\.\d{3}Z\|/, '$1Z|')}\n`);
    }
    if (this.file !== undefined && this.levels.enabled(module, level, 'file')) {
      try {
        appendFileSync(this.file, `${line}\n`);
      } catch {
        // as vlog does, a log file that cannot be written is not fatal
      }
    }
  }

  /** Stop writing to the console (a daemon once detached: its stderr is gone). */
  closeConsole(): void {
    this.consoleOpen = false;
  }
}
