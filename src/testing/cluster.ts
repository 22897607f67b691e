/**
 * Start a real Raft cluster of `ovsdb-server`s on loopback for tests: the
 * database is created with `ovsdb-tool create-cluster` on the first member
 * and `ovsdb-tool join-cluster` on the others; members talk Raft over
 * `tcp:127.0.0.1:<port>` and serve clients on a Unix socket each.
 *
 * ```ts
 * const cluster = await startOvsdbCluster({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema', size: 3 });
 * try {
 *   const leader = await cluster.leader();
 *   await cluster.kill(leader.index);   // SIGKILL: a new leader gets elected
 *   await cluster.restart(leader.index); // it rejoins as a follower
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 *
 * Every process this module starts is killed (SIGKILL) and its directory
 * removed when the Node process exits or receives SIGINT, SIGTERM or SIGHUP.
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { type OvsTools, requireOvsdbServer } from './ovs-tools.js';
import { installHooks, liveChildren, liveDirs, runTool, socketAccepts } from './processes.js';

/** {@link runTool} with room for large `ovsdb-client dump` outputs. */
function runToolBig(tool: string, args: string[], timeout = 30_000): Promise<string> {
  return runTool(tool, args, timeout, 256 * 1024 * 1024);
}

/** Options of {@link startOvsdbCluster}. Give `schema` or `schemaPath`. */
export interface StartOvsdbClusterOptions {
  /** The schema: a parsed {@link DatabaseSchema} or the `.ovsschema` JSON object. */
  readonly schema?: DatabaseSchema | object | undefined;
  /** Path of an `.ovsschema` file (used when `schema` is not given). */
  readonly schemaPath?: string | undefined;
  /** The number of members. Default 3. */
  readonly size?: number | undefined;
  /** More `ovsdb-server` arguments for every member. */
  readonly extraArgs?: readonly string[] | undefined;
  /** How long to wait for the cluster to form. Default 30,000 ms. */
  readonly startTimeoutMs?: number | undefined;
  /**
   * Run member `i` as host `hosts[i]` (one per member): it talks Raft on
   * `tcp:<address>:6643` and serves clients on `tcp:<address>:6641` too
   * (`ClusterMember.tcpRemote`), inside network namespace `netns` when
   * given (started with `ip netns exec`; needs root). Its unix sockets stay
   * in the cluster's directory, reachable from any namespace. Default: every
   * member on 127.0.0.1, Raft on a free port, clients on unix sockets only.
   */
  readonly hosts?: readonly ClusterHost[] | undefined;
}

/** Where a cluster member runs: see {@link StartOvsdbClusterOptions.hosts}. */
export interface ClusterHost {
  /** The IPv4 address the member listens on. */
  readonly address: string;
  /** The network namespace (`ip netns` name) to run it in. */
  readonly netns?: string | undefined;
}

/** One member of a cluster started by {@link startOvsdbCluster}. */
export interface ClusterMember {
  /** Its position in {@link OvsdbClusterHandle.members}, from 0. */
  readonly index: number;
  /** `unix:<dir>/sN.sock`: where clients connect. */
  readonly remote: string;
  /** `tcp:127.0.0.1:<port>`: its Raft address. */
  readonly raftAddress: string;
  /** `tcp:<address>:6641` when the cluster was started with `hosts`. */
  readonly tcpRemote: string | undefined;
  /** The database file. */
  readonly dbPath: string;
  /** The unixctl socket, for `ovs-appctl -t`. */
  readonly ctlPath: string;
  /** The log file. */
  readonly logPath: string;
  /** The process ID (changes on restart; -1 before the first start). */
  readonly pid: number;
  /** Whether the process runs. */
  readonly running: boolean;
}

/** A running cluster. */
export interface OvsdbClusterHandle {
  /** The database name (the schema's `name`). */
  readonly dbName: string;
  /** The temporary directory holding every member's files. */
  readonly dir: string;
  /** The members, in creation order (member 0 created the cluster). */
  readonly members: readonly ClusterMember[];
  /** Every member's client remote, in member order. */
  readonly remotes: readonly string[];
  /**
   * The current leader among the running members: waits (up to `timeoutMs`,
   * default 15,000) until one reports `Role: leader` in `cluster/status`.
   */
  leader(timeoutMs?: number): Promise<ClusterMember>;
  /** SIGKILL member `index` and wait for it to die. */
  kill(index: number): Promise<void>;
  /** Start member `index` again on its database file (it rejoins the cluster) and wait until it is connected. */
  restart(index: number): Promise<void>;
  /** `ovs-appctl -t <ctl> cluster/status <db>` of member `index`. */
  status(index: number): Promise<string>;
  /** Run `ovs-appctl -t <ctl> ...args` on member `index`. */
  appctl(index: number, ...args: string[]): Promise<string>;
  /**
   * Run `ovsdb-client` against member `index` (see `OvsdbServerHandle.ovsdbClient`
   * for the argument convention) and return its stdout.
   */
  ovsdbClient(index: number, ...args: string[]): Promise<string>;
  /** Kill every member and remove the directory. Idempotent. */
  stop(): Promise<void>;
}

/** Reserve `n` distinct free TCP ports on 127.0.0.1. */
async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) {
      const srv = net.createServer();
      servers.push(srv);
      await new Promise<void>((ok, fail) => {
        srv.once('error', fail);
        srv.listen(0, '127.0.0.1', () => ok());
      });
      ports.push((srv.address() as net.AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((ok) => s.close(() => ok()))));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ports of a member run as a host of its own (`hosts`), as OVN's Northbound uses them. */
const CLIENT_PORT = 6641;
const RAFT_PORT = 6643;

function schemaJson(schema: DatabaseSchema | object): unknown {
  const s = schema as Partial<DatabaseSchema>;
  if ('json' in s && s.json !== undefined && typeof s.name === 'string') return s.json;
  return schema;
}

class Member implements ClusterMember {
  readonly remote: string;
  readonly raftAddress: string;
  readonly tcpRemote: string | undefined;
  readonly dbPath: string;
  readonly ctlPath: string;
  readonly logPath: string;
  private readonly sockPath: string;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly index: number,
    private readonly dir: string,
    port: number,
    private readonly tools: OvsTools,
    private readonly dbName: string,
    private readonly extraArgs: readonly string[],
    private readonly host: ClusterHost | undefined,
  ) {
    this.sockPath = join(dir, `s${index}.sock`);
    this.remote = `unix:${this.sockPath}`;
    this.raftAddress =
      host === undefined ? `tcp:127.0.0.1:${port}` : `tcp:${host.address}:${RAFT_PORT}`;
    this.tcpRemote = host === undefined ? undefined : `tcp:${host.address}:${CLIENT_PORT}`;
    this.dbPath = join(dir, `s${index}.db`);
    this.ctlPath = join(dir, `s${index}.ctl`);
    this.logPath = join(dir, `s${index}.log`);
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  get running(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  start(): void {
    if (this.running) throw new Error(`cluster member ${this.index} is already running`);
    const host = this.host;
    const args = [
      this.tools.ovsdbServer,
      this.dbPath,
      `--remote=punix:${this.sockPath}`,
      ...(host === undefined ? [] : [`--remote=ptcp:${CLIENT_PORT}:${host.address}`]),
      `--unixctl=${this.ctlPath}`,
      `--pidfile=${join(this.dir, `s${this.index}.pid`)}`,
      `--log-file=${this.logPath}`,
      '-vconsole:off',
      ...this.extraArgs,
    ];
    // `ip netns exec` execs the server: the child is the server itself.
    if (host?.netns !== undefined) args.unshift('ip', 'netns', 'exec', host.netns);
    const child = spawn(args[0]!, args.slice(1), { stdio: 'ignore' });
    this.child = child;
    liveChildren.add(child);
    this.exited = new Promise<void>((done) => {
      child.once('exit', () => {
        liveChildren.delete(child);
        done();
      });
      child.once('error', () => {
        liveChildren.delete(child);
        done();
      });
    });
    child.unref();
  }

  /** Wait until the member is part of the cluster and serves the database. */
  async waitConnected(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // The sockets appear once the server runs (the control socket, for
    // ovs-appctl, possibly after the database's).
    for (const path of [this.sockPath, this.ctlPath]) {
      for (;;) {
        if (!this.running) {
          await this.exited;
          throw new Error(
            `cluster member ${this.index} exited during startup: ${await this.logTail()}`,
          );
        }
        if (await socketAccepts({ path })) break;
        if (Date.now() > deadline) {
          throw new Error(`cluster member ${this.index} did not listen on ${path}`);
        }
        await sleep(20);
      }
    }
    const seconds = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
    await runToolBig(this.tools.ovsdbClient, [
      `--timeout=${seconds}`,
      'wait',
      this.remote,
      this.dbName,
      'connected',
    ]);
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.ref();
    child.kill('SIGKILL');
    await this.exited;
  }

  async logTail(): Promise<string> {
    try {
      return (await readFile(this.logPath, 'utf8')).slice(-3000);
    } catch {
      return '(no log)';
    }
  }
}

/**
 * Build and start a Raft cluster of `size` (default 3) `ovsdb-server`s on
 * loopback. Resolves when every member is connected to the cluster.
 *
 * Fails (does not skip) when Open vSwitch is not installed.
 */
export async function startOvsdbCluster(
  options: StartOvsdbClusterOptions,
): Promise<OvsdbClusterHandle> {
  const tools = requireOvsdbServer(false);
  installHooks();
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be ≥ 1, got ${size}`);
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-cluster-'));
  liveDirs.add(dir);
  const members: Member[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(members.map((m) => m.kill()));
    liveDirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    let schemaText: string;
    if (options.schema !== undefined)
      schemaText = JSON.stringify(schemaJson(options.schema), null, 1);
    else if (options.schemaPath !== undefined) {
      schemaText = await readFile(resolve(options.schemaPath), 'utf8');
    } else throw new Error('startOvsdbCluster: give `schema` or `schemaPath`');
    const dbName = (JSON.parse(schemaText) as { name?: unknown }).name;
    if (typeof dbName !== 'string') throw new Error('startOvsdbCluster: the schema has no name');
    const schemaFile = join(dir, 'schema.ovsschema');
    await writeFile(schemaFile, schemaText);
    const hosts = options.hosts;
    if (hosts !== undefined && hosts.length !== size) {
      throw new RangeError(`hosts: one per member needed (${size}), got ${hosts.length}`);
    }
    const ports = hosts === undefined ? await freePorts(size) : [];
    for (let i = 0; i < size; i++) {
      members.push(
        new Member(
          i,
          dir,
          ports[i] ?? RAFT_PORT,
          tools,
          dbName,
          options.extraArgs ?? [],
          hosts?.[i],
        ),
      );
    }
    const first = members[0]!;
    await runToolBig(tools.ovsdbTool, [
      'create-cluster',
      first.dbPath,
      schemaFile,
      first.raftAddress,
    ]);
    for (const m of members.slice(1)) {
      await runToolBig(tools.ovsdbTool, [
        'join-cluster',
        m.dbPath,
        dbName,
        m.raftAddress,
        ...members.filter((o) => o !== m).map((o) => o.raftAddress),
      ]);
    }
    for (const m of members) m.start();
    await Promise.all(members.map((m) => m.waitConnected(timeoutMs)));

    const status = (index: number) =>
      runToolBig(tools.ovsAppctl, ['-t', member(index).ctlPath, 'cluster/status', dbName]);
    const member = (index: number): Member => {
      const m = members[index];
      if (m === undefined) throw new RangeError(`no cluster member ${index} (size ${size})`);
      return m;
    };
    const handle: OvsdbClusterHandle = {
      dbName,
      dir,
      members,
      remotes: members.map((m) => m.remote),
      async leader(leaderTimeoutMs = 15_000) {
        const deadline = Date.now() + leaderTimeoutMs;
        for (;;) {
          for (const m of members) {
            if (!m.running) continue;
            try {
              const text = await status(m.index);
              if (/^Role: leader$/m.test(text)) return m;
            } catch {
              // not answering yet
            }
          }
          if (Date.now() > deadline) {
            throw new Error(`no cluster leader within ${leaderTimeoutMs} ms`);
          }
          await sleep(50);
        }
      },
      kill: (index) => member(index).kill(),
      async restart(index) {
        const m = member(index);
        await m.kill();
        m.start();
        await m.waitConnected(timeoutMs);
      },
      status,
      appctl: (index, ...args) =>
        runToolBig(tools.ovsAppctl, ['-t', member(index).ctlPath, ...args]),
      ovsdbClient(index, ...args) {
        const firstCommand = args.findIndex((a) => !a.startsWith('-'));
        const at = firstCommand < 0 ? args.length : firstCommand + 1;
        const full = [...args.slice(0, at), member(index).remote, ...args.slice(at)];
        return runToolBig(tools.ovsdbClient, ['--timeout=20', ...full]);
      },
      stop,
    };
    return handle;
  } catch (e) {
    await stop();
    throw e;
  }
}
