/**
 * Where `ovnkit-server` writes its log, with Open vSwitch's `-v` / `--verbose`
 * and `vlog/set` specs (`lib/vlog.c`): `[module][:destination][:level]` in
 * any order, separated by `:`, `,` or spaces, `ANY` for every module or
 * destination, and `dbg` when no level is given (`-v` alone: everything at
 * `dbg`). Destinations are `console` (stderr), `file` (`--log-file`) and
 * `syslog` (accepted, never written). Levels are `off`, `emer`, `err`,
 * `warn`, `info` and `dbg`. Modules are ovsdb-server's (and `metrics`); an
 * unknown word is refused as ovsdb-server refuses it
 * (`no destination, level, or module "<word>"`).
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

/**
 * The modules a spec may name: ovsdb-server 3.1's (its `vlog/list`), so that
 * every spec it takes works here unchanged, and ovnkit-server's own
 * (`metrics`). Another name is refused as ovsdb-server refuses it.
 */
const MODULES = new Set(
  (
    'backtrace bundle command_line conntrack conntrack_tp coverage ct_dpif daemon daemon_unix ' +
    'dns_resolve dpdk dpif dpif_lookup_autovalidator dpif_lookup_generic dpif_mfex_extract_study ' +
    'dpif_netdev dpif_netdev_extract dpif_netdev_impl dpif_netdev_lookup dpif_netlink ' +
    'dpif_netlink_rtnl entropy fatal_signal flow hmap ipf jsonrpc lockfile memory meta_flow ' +
    'native_tnl netdev netdev_afxdp netdev_linux netdev_offload netdev_offload_tc netdev_vport ' +
    'netlink netlink_conntrack netlink_notifier netlink_socket nx_match odp_execute ' +
    'odp_execute_impl odp_util ofp_actions ofp_bundle ofp_connection ofp_errors ofp_flow ' +
    'ofp_group ofp_match ofp_meter ofp_monitor ofp_msgs ofp_packet ofp_port ofp_protocol ' +
    'ofp_queue ofp_table ofp_util ovs_numa ovs_rcu ovs_replay ovs_router ovs_thread ovsdb ' +
    'ovsdb_cs ovsdb_error ovsdb_file ovsdb_idl ovsdb_jsonrpc_server ovsdb_log ovsdb_monitor ' +
    'ovsdb_rbac ovsdb_server ovsdb_util ox_stat pmd_perf poll_loop process raft raft_rpc ' +
    'reconnect relay replication route_table sha1 signals socket_util socket_util_unix storage ' +
    'stream stream_fd stream_replay stream_ssl stream_tcp stream_unix svec tc timeval ' +
    'transaction transaction_forward trigger unixctl userspace_tso util uuid vlog metrics'
  ).split(' '),
);
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
      } else if (MODULES.has(w)) {
        if (module !== undefined) return 'cannot specify multiple modules';
        module = w;
      } else {
        return `no destination, level, or module "${word}"`;
      }
    }
    this.set(module, destination, level ?? 5);
    return undefined;
  }

  /**
   * `vlog/list`: every module's level per destination, in ovsdb-server's
   * table (modules in alphabetical order).
   */
  list(): string {
    const name = (l: number) => (LEVELS[l] as string).toUpperCase();
    const lines = [
      '                 console    syslog    file\n',
      '                 -------    ------    ------\n',
    ];
    for (const m of [...MODULES].sort()) {
      const l = this.modules.get(m) ?? this.any;
      lines.push(
        `${m.padEnd(16)}  ${name(l.console).padStart(4)}       ${name(l.syslog).padStart(4)}       ${name(l.file).padStart(4)}\n`,
      );
    }
    return lines.join('');
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
