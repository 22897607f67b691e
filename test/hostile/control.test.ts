/**
 * Hostile use of `ovnkit-server`'s control socket, side by side with
 * ovsdb-server 3.1 given the same: a client that pipelines 400,000 requests
 * (20 MB) and never reads a reply (each server must stop reading that
 * connection once its replies back up, stay small, and keep answering
 * `ovs-appctl` on other connections); and `vlog/set` specs naming a module,
 * destination or level that does not exist, answered as ovsdb-server
 * answers them.
 */

import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type ServerUnderTest, startServer } from './helpers.js';

let ovnkit: ServerUnderTest;
let ovsdb: ServerUnderTest;

beforeAll(async () => {
  [ovnkit, ovsdb] = await Promise.all([startServer('ovnkit-server'), startServer('ovsdb-server')]);
});

afterAll(async () => {
  await Promise.all([ovnkit?.stop(), ovsdb?.stop()]);
});

/** Resident memory of process `pid`, in bytes. */
function rss(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

function appctl(s: ServerUnderTest, ...args: string[]): Promise<string> {
  return runTool(requireOvsdbServer(false).ovsAppctl, ['-t', s.server.ctl, ...args]);
}

/**
 * Pipeline `n` `version` requests on a new control connection that never
 * reads, and wait until the server stops taking them (what the client has
 * not handed to the kernel stays the same for two seconds) or took them all.
 */
async function flood(s: ServerUnderTest, n: number): Promise<{ socket: Socket; unsent: number }> {
  const socket = netConnect(s.server.ctl);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  socket.pause();
  // Written in pieces of 1,000 requests: what waits in the client is counted per piece.
  for (let i = 0; i < n; i += 1000) {
    const parts: string[] = [];
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      parts.push(`{"method":"version","params":[],"id":${1_000_000 + j}}`);
    }
    socket.write(parts.join(''));
  }
  let last = -1;
  let still = 0;
  while (socket.writableLength > 0 && still < 10) {
    await sleep(200);
    still = socket.writableLength === last ? still + 1 : 0;
    last = socket.writableLength;
  }
  return { socket, unsent: socket.writableLength };
}

describe('a control connection that pipelines requests and never reads', () => {
  it.each([
    ['ovnkit-server', () => ovnkit],
    ['ovsdb-server', () => ovsdb],
  ])('%s stops reading it and stays small', async (_name, which) => {
    const s = which();
    const pid = s.server.child.pid as number;
    const before = rss(pid);
    const { socket, unsent } = await flood(s, 400_000);
    try {
      const grown = rss(pid) - before;
      // 400,000 requests are 20 MB: most of them must still wait in the client.
      expect(unsent).toBeGreaterThan(10_000_000);
      expect(grown).toBeLessThan(32 * 1024 * 1024);
      expect(await appctl(s, 'version')).toMatch(/\(Open vSwitch\)|\(ovnkit\)/);
    } finally {
      socket.destroy();
    }
    expect(s.alive()).toBe(true);
  });
});

/** What `ovs-appctl -t <ctl> vlog/set <spec>` prints: its reply, or the error's first line. */
async function vlogSet(s: ServerUnderTest, spec: string): Promise<string> {
  try {
    return `ok: ${await appctl(s, 'vlog/set', spec)}`;
  } catch (e) {
    const text = (e as Error).message.replace(/^.*? failed: /s, '');
    return `error: ${text.split('\n')[0]}`;
  }
}

describe('vlog/set with a word that is no module, destination or level', () => {
  it.each([
    'nosuchmod:dbg',
    'nosuchmod',
    'file:nosuchmod:dbg',
    'nosuchmod:file:dbg',
    'jsonrpc:bogus',
    'bogusdest:dbg',
    'jsonrpc:file:dbg',
    'ANY:file:info',
    'reconnect:dbg',
  ])('%s: ovnkit-server answers as ovsdb-server', async (spec) => {
    const theirs = await vlogSet(ovsdb, spec);
    expect(await vlogSet(ovnkit, spec)).toBe(theirs);
    if (spec.includes('bogus') || spec.includes('nosuchmod')) {
      expect(theirs).toMatch(
        /^error: no destination, level, or module "(nosuchmod|bogus|bogusdest)"$/,
      );
    }
  });
});
