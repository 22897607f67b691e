/**
 * A small network of namespaces for fault tests (root only): a router
 * namespace, where the client runs, linked by a veth pair to each host
 * namespace (`10.99.<i>.2/24` on the host, `10.99.<i>.1` on the router,
 * which forwards between them). Firewall DROP rules drop a host's traffic
 * silently (no RST, no ICMP), as a lost host or network path does.
 * Every namespace (and with it its interfaces, rules and routes) is deleted
 * by {@link NetLab.destroy}, and when the test process exits.
 */

import { execFileSync, spawnSync } from 'node:child_process';

const live = new Set<string>();
let hooked = false;

function deleteSync(ns: string): void {
  spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  live.delete(ns);
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const ns of [...live]) deleteSync(ns);
  });
}

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Whether this process may create network namespaces (root, with `ip` and `iptables`). */
export function canMakeNamespaces(): boolean {
  const name = `ovk-probe-${process.pid}`;
  try {
    ip('netns', 'add', name);
    execFileSync('ip', ['netns', 'exec', name, 'iptables', '-w', '-L', '-n'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  }
}

/** See the module docs. */
export class NetLab {
  /** Where the client runs (and packets between hosts are forwarded). */
  readonly router: string;
  /** One namespace per host. */
  readonly hosts: readonly { readonly netns: string; readonly address: string }[];

  private constructor(prefix: string, count: number) {
    this.router = `${prefix}-r`;
    this.hosts = Array.from({ length: count }, (_, i) => ({
      netns: `${prefix}-h${i}`,
      address: `10.99.${i}.2`,
    }));
  }

  /** Create the namespaces `<prefix>-r` and `<prefix>-h<i>`, linked and up. */
  static create(prefix: string, count: number): NetLab {
    hook();
    const lab = new NetLab(prefix, count);
    try {
      for (const ns of [lab.router, ...lab.hosts.map((h) => h.netns)]) {
        deleteSync(ns); // a leftover of a killed run
        ip('netns', 'add', ns);
        live.add(ns);
        ip('-n', ns, 'link', 'set', 'lo', 'up');
      }
      const r = lab.router;
      execFileSync('ip', ['netns', 'exec', r, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      lab.hosts.forEach((h, i) => {
        ip(
          '-n',
          r,
          'link',
          'add',
          `h${i}`,
          'type',
          'veth',
          'peer',
          'name',
          'eth0',
          'netns',
          h.netns,
        );
        ip('-n', r, 'addr', 'add', `10.99.${i}.1/24`, 'dev', `h${i}`);
        ip('-n', r, 'link', 'set', `h${i}`, 'up');
        ip('-n', h.netns, 'addr', 'add', `${h.address}/24`, 'dev', 'eth0');
        ip('-n', h.netns, 'link', 'set', 'eth0', 'up');
        ip('-n', h.netns, 'route', 'add', 'default', 'via', `10.99.${i}.1`);
      });
    } catch (e) {
      lab.destroy();
      throw e;
    }
    return lab;
  }

  /**
   * The commands (run them in any namespace: they name theirs) that drop
   * the traffic of host `i`: `raft` its traffic with the other hosts (in
   * the router's `FORWARD` chain, so nothing of the client's is touched),
   * `all` everything on its link (in the host: the packets the client
   * sends leave the client's host and are lost on the way, as on a real
   * network).
   */
  dropCommands(i: number, which: 'raft' | 'all'): string[][] {
    const host = this.hosts[i]!;
    const rules =
      which === 'raft'
        ? [
            [this.router, 'FORWARD', '-s', host.address],
            [this.router, 'FORWARD', '-d', host.address],
          ]
        : [
            [host.netns, 'INPUT', '-i', 'eth0'],
            [host.netns, 'OUTPUT', '-o', 'eth0'],
          ];
    return rules.map(([ns, chain, ...match]) => [
      'ip',
      'netns',
      'exec',
      ns!,
      'iptables',
      '-w',
      '-I',
      chain!,
      ...match,
      '-j',
      'DROP',
    ]);
  }

  /** Delete every namespace (idempotent); their processes must be gone or going. */
  destroy(): void {
    for (const ns of [this.router, ...this.hosts.map((h) => h.netns)]) {
      if (live.has(ns)) deleteSync(ns);
    }
  }
}
