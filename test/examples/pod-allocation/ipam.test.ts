/**
 * The pod IPAM: subnet parsing, static IPs, pools, StatefulSet ordinals,
 * MACs, leases (commit and rollback), IPv6 /64 without enumeration,
 * restoring from NB ports, and property tests (no duplicates, everything in
 * the CIDR, nothing excluded, release makes an address reusable).
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AddressConflictError,
  ExcludedAddressError,
  ExhaustedError,
  InvalidAddressError,
  InvalidSubnetError,
  Ipam,
  OutsideCidrError,
  parseAddress,
  parseCidr,
  parseSubnet,
  ReservedAddressError,
  stableMac,
  UnknownSubnetError,
} from '../../../examples/pod-allocation/ipam/index.js';

const V4 = { name: 'v4', cidr: '10.0.0.0/29', excludeIps: ['10.0.0.3'] };
const DUAL = {
  name: 'dual',
  cidr: 'fd00::/64,10.1.0.0/24',
  excludeIps: ['10.1.0.2..10.1.0.9', 'fd00::2..fd00::ff'],
};

function take(ipam: Ipam, owner: string, subnet: string, request = {}) {
  const lease = ipam.lease(owner, subnet, request);
  lease.commit();
  return lease.allocation;
}

describe('subnets', () => {
  it('parses IPv4, IPv6 and dual-stack CIDRs, IPv4 first, with default gateways', () => {
    const s = parseSubnet(DUAL);
    expect(s.ranges.map((r) => r.cidr.text)).toEqual(['10.1.0.0/24', 'fd00::/64']);
    expect(s.ranges.map((r) => r.gatewayText)).toEqual(['10.1.0.1', 'fd00::1']);
    expect(parseCidr('10.1.2.3/16')?.text).toBe('10.1.0.0/16');
    expect(parseCidr('fd00::1/64')?.size).toBe(2n ** 64n);
  });

  it('rejects bad definitions with the reason', () => {
    expect(() => parseSubnet({ name: 'x', cidr: '10.0.0.0/33' })).toThrow(InvalidSubnetError);
    expect(() => parseSubnet({ name: 'x', cidr: '10.0.0.0/24,10.1.0.0/24' })).toThrow(
      /one IPv4 and one IPv6/,
    );
    expect(() => parseSubnet({ name: 'x', cidr: '10.0.0.0/24', gateway: '10.9.0.1' })).toThrow(
      /outside 10.0.0.0\/24/,
    );
    expect(() => parseSubnet({ name: 'x', cidr: '10.0.0.0/24', excludeIps: ['10.0.1.1'] })).toThrow(
      /excludeIps entry 10.0.1.1 is outside/,
    );
    expect(() =>
      parseSubnet({ name: 'x', cidr: '10.0.0.0/24', excludeIps: ['10.0.0.9..10.0.0.2'] }),
    ).toThrow(/not an address or a range/);
  });

  it('parses addresses strictly', () => {
    expect(parseAddress('10.0.0.1')).toEqual({ family: 4, value: 0x0a000001n });
    expect(parseAddress('10.1')).toBeUndefined();
    expect(parseAddress('0x0a.0.0.1')).toBeUndefined();
    expect(parseAddress('fe80::1%eth0')).toBeUndefined();
    expect(parseAddress('10.0.0.256')).toBeUndefined();
  });
});

describe('allocation', () => {
  it('next-free skips network, gateway, excluded, and ends at broadcast', () => {
    const ipam = new Ipam([V4]);
    const got = ['a', 'b', 'c', 'd'].map((o) => take(ipam, o, 'v4').ips[0]);
    expect(got).toEqual(['10.0.0.2', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
    const e = (() => {
      try {
        ipam.lease('e', 'v4');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(ExhaustedError);
    expect(String(e)).toMatch(/no free address left in IPv4 range 10.0.0.0\/29/);
  });

  it('refuses static IPs that are malformed, outside, excluded, reserved or taken', () => {
    const ipam = new Ipam([V4]);
    take(ipam, 'a', 'v4', { ips: ['10.0.0.5'] });
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.0.999'] })).toThrow(InvalidAddressError);
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.1.5'] })).toThrow(OutsideCidrError);
    expect(() => ipam.lease('b', 'v4', { ips: ['fd00::5'] })).toThrow(OutsideCidrError);
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.0.3'] })).toThrow(ExcludedAddressError);
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.0.1'] })).toThrow(ReservedAddressError);
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.0.7'] })).toThrow(/broadcast/);
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.0.5'] })).toThrow(AddressConflictError);
    expect(() => ipam.lease('b', 'v4', { ips: ['10.0.0.5'] })).toThrow(
      /10.0.0.5 is already allocated to a/,
    );
    expect(() => ipam.lease('b', 'nowhere')).toThrow(UnknownSubnetError);
    // Nothing was reserved by the failed attempts.
    expect(take(ipam, 'b', 'v4').ips).toEqual(['10.0.0.2']);
  });

  it('dual-stack: one IP per family; a static IPv4 with an allocated IPv6', () => {
    const ipam = new Ipam([DUAL]);
    const a = take(ipam, 'a', 'dual', { ips: ['10.1.0.50'] });
    expect(a.ips).toEqual(['10.1.0.50', 'fd00::100']);
    expect(a.cidrs).toEqual(['10.1.0.0/24', 'fd00::/64']);
    expect(a.gateways).toEqual(['10.1.0.1', 'fd00::1']);
    const b = take(ipam, 'b', 'dual');
    expect(b.ips).toEqual(['10.1.0.10', 'fd00::101']);
  });

  it('pools: the first free entry; StatefulSet ordinal N takes entry N; an ordinal past the pool is exhaustion', () => {
    const ipam = new Ipam([DUAL]);
    const pool = ['10.1.0.20', '10.1.0.21', 'fd00::1:20', 'fd00::1:21'];
    expect(take(ipam, 'p1', 'dual', { pool }).ips).toEqual(['10.1.0.20', 'fd00::1:20']);
    expect(take(ipam, 'p2', 'dual', { pool }).ips).toEqual(['10.1.0.21', 'fd00::1:21']);
    expect(() => ipam.lease('p3', 'dual', { pool })).toThrow(/no free address left in IPv4 pool/);
    const sts = ['10.1.0.30', '10.1.0.31', '10.1.0.32'];
    expect(take(ipam, 'db-2', 'dual', { pool: sts, ordinal: 2 }).ips[0]).toBe('10.1.0.32');
    expect(take(ipam, 'db-0', 'dual', { pool: sts, ordinal: 0 }).ips[0]).toBe('10.1.0.30');
    expect(() => ipam.lease('db-3', 'dual', { pool: sts, ordinal: 3 })).toThrow(/has no entry 3/);
    expect(() => ipam.lease('x', 'dual', { pool: ['10.1.0.5'] })).toThrow(ExcludedAddressError);
  });

  it('keeps what an owner has when the request still fits, and moves when it does not', () => {
    const ipam = new Ipam([DUAL, V4]);
    const a = take(ipam, 'a', 'dual');
    const again = ipam.lease('a', 'dual');
    expect(again.changed).toBe(false);
    expect(again.allocation).toBe(a);
    const moved = ipam.lease('a', 'dual', { ips: ['10.1.0.77'] });
    expect(moved.changed).toBe(true);
    expect(moved.allocation.ips).toEqual(['10.1.0.77', a.ips[1]]);
    moved.commit();
    expect(ipam.holderOf('dual', a.ips[0]!)).toBeUndefined();
    expect(ipam.holderOf('dual', '10.1.0.77')).toBe('a');
    const other = take(ipam, 'a', 'v4');
    expect(other.mac).toBe(a.mac);
    expect(ipam.holderOf('dual', '10.1.0.77')).toBeUndefined();
  });

  it('rollback frees the new addresses and keeps the previous allocation', () => {
    const ipam = new Ipam([V4]);
    const first = take(ipam, 'a', 'v4');
    const lease = ipam.lease('a', 'v4', { ips: ['10.0.0.6'] });
    expect(ipam.holderOf('v4', '10.0.0.6')).toBe('a');
    lease.rollback();
    expect(ipam.holderOf('v4', '10.0.0.6')).toBeUndefined();
    expect(ipam.allocationOf('a')).toBe(first);
    expect(ipam.holderOf('v4', first.ips[0]!)).toBe('a');
    const fresh = ipam.lease('b', 'v4');
    fresh.rollback();
    expect(ipam.allocationOf('b')).toBeUndefined();
    expect(take(ipam, 'c', 'v4').ips[0]).toBe(fresh.allocation.ips[0]);
  });

  it('MACs: stable, locally administered unicast; annotated ones are checked', () => {
    const mac = stableMac('default/web-0');
    expect(mac).toBe(stableMac('default/web-0'));
    expect(mac).not.toBe(stableMac('default/web-1'));
    const first = Number.parseInt(mac.slice(0, 2), 16);
    expect(first & 0x02).toBe(0x02);
    expect(first & 0x01).toBe(0);
    const ipam = new Ipam([V4]);
    expect(take(ipam, 'a', 'v4', { mac: '0A:58:0A:00:00:05' }).mac).toBe('0a:58:0a:00:00:05');
    expect(() => ipam.lease('b', 'v4', { mac: '0a:58:0a:00:00:05' })).toThrow(AddressConflictError);
    expect(() => ipam.lease('b', 'v4', { mac: '01:00:5e:00:00:01' })).toThrow(/not a unicast MAC/);
    expect(() => ipam.lease('b', 'v4', { mac: 'zz' })).toThrow(InvalidAddressError);
  });

  it('IPv6 /64: next-free and random work without enumerating the space', () => {
    const next = new Ipam([{ name: 'v6', cidr: 'fd00:1::/64' }]);
    const t0 = performance.now();
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(take(next, `p${i}`, 'v6').ips[0]!);
    expect(seen.size).toBe(2000);
    expect(seen.has('fd00:1::2')).toBe(true);
    expect(seen.has('fd00:1::7d1')).toBe(true);
    const random = new Ipam([{ name: 'v6', cidr: 'fd00:1::/64' }], 'random');
    const r = new Set<string>();
    for (let i = 0; i < 2000; i++) r.add(take(random, `p${i}`, 'v6').ips[0]!);
    expect(r.size).toBe(2000);
    // Random offsets spread over the /64: some land in the upper half.
    const upper = [...r].filter((ip) => (parseAddress(ip)!.value & (1n << 63n)) !== 0n);
    expect(upper.length).toBeGreaterThan(500);
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('restore: pods from ovnkit ports, other ports marked used, conflicts reported', () => {
    const ipam = new Ipam([DUAL]);
    const result = ipam.restore([
      {
        name: 'web.default',
        switch: 'dual',
        addresses: ['0a:00:00:00:00:01 10.1.0.10 fd00::100'],
        externalIds: { vendor: 'ovnkit', pod: 'default/web', ls: 'dual' },
      },
      { name: 'vm1', switch: 'dual', addresses: ['0a:00:00:00:00:02 10.1.0.11'], externalIds: {} },
      { name: 'dup', switch: 'dual', addresses: ['0a:00:00:00:00:03 10.1.0.11'], externalIds: {} },
      { name: 'rtr', switch: 'dual', addresses: ['router'], externalIds: {} },
      {
        name: 'elsewhere',
        switch: 'other',
        addresses: ['0a:00:00:00:00:04 10.1.0.12'],
        externalIds: {},
      },
    ]);
    expect(result.pods).toBe(1);
    expect(result.foreign).toBe(1);
    expect(result.conflicts).toEqual(['10.1.0.11 (port:vm1 and port:dup)']);
    expect(ipam.allocationOf('default/web')?.ips).toEqual(['10.1.0.10', 'fd00::100']);
    expect(ipam.lease('default/web', 'dual').changed).toBe(false);
    expect(take(ipam, 'new', 'dual').ips).toEqual(['10.1.0.12', 'fd00::101']);
    expect(() => ipam.lease('x', 'dual', { mac: '0a:00:00:00:00:01' })).toThrow(
      AddressConflictError,
    );
  });
});

describe('properties', () => {
  it('assignableCount is the number of addresses a subnet hands out before it is exhausted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 26, max: 30 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 0, max: 8 })), {
          maxLength: 4,
        }),
        fc.option(fc.integer({ min: 0, max: 63 }), { nil: undefined }),
        (prefix, excludes, gw) => {
          const size = 2 ** (32 - prefix);
          const last = size - 2; // the highest assignable host (broadcast left out)
          const at = (n: number) => `10.9.0.${Math.min(Math.max(n, 1), last)}`;
          const spec = {
            name: 'p',
            cidr: `10.9.0.0/${prefix}`,
            // Exclusions may overlap each other and the gateway.
            excludeIps: excludes.map(([a, len]) => `${at(a)}..${at(a + len)}`),
            ...(gw === undefined ? {} : { gateway: at(gw) }),
          };
          const ipam = new Ipam();
          ipam.addSubnet(spec);
          const expected = ipam.subnet('p').ranges[0]!.assignableCount;
          let handed = 0;
          for (;;) {
            try {
              take(ipam, `o${handed}`, 'p');
              handed++;
            } catch (e) {
              expect(e).toBeInstanceOf(ExhaustedError);
              break;
            }
          }
          expect(BigInt(handed)).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  const subnetArb = fc.record({
    prefix: fc.integer({ min: 24, max: 28 }),
    excludes: fc.array(fc.tuple(fc.integer({ min: 1, max: 11 }), fc.integer({ min: 0, max: 3 })), {
      maxLength: 3,
    }),
    strategy: fc.constantFrom('next-free' as const, 'random' as const),
  });
  const opsArb = fc.array(
    fc.oneof(
      fc.record({ op: fc.constant('alloc' as const), owner: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ op: fc.constant('release' as const), owner: fc.integer({ min: 0, max: 40 }) }),
      fc.record({
        op: fc.constant('static' as const),
        owner: fc.integer({ min: 0, max: 40 }),
        host: fc.integer({ min: 0, max: 20 }),
      }),
    ),
    { maxLength: 80 },
  );

  it('no duplicates, all inside the CIDR, nothing excluded or reserved, released addresses are reusable', () => {
    fc.assert(
      fc.property(
        subnetArb,
        opsArb,
        fc.boolean(),
        ({ prefix, excludes, strategy }, ops, rollbackSome) => {
          const excludeIps = excludes.map(([a, n]) =>
            n === 0 ? `10.9.0.${a}` : `10.9.0.${a}..10.9.0.${a + n}`,
          );
          const ipam = new Ipam([{ name: 's', cidr: `10.9.0.0/${prefix}`, excludeIps }], strategy);
          const sub = ipam.subnet('s');
          const range = sub.ranges[0]!;
          let i = 0;
          for (const o of ops) {
            const owner = `o${o.owner}`;
            if (o.op === 'release') {
              const freed = ipam.release(owner);
              if (freed !== undefined) expect(ipam.holderOf('s', freed.ips[0]!)).toBeUndefined();
              continue;
            }
            try {
              const lease = ipam.lease(
                owner,
                's',
                o.op === 'static' ? { ips: [`10.9.0.${o.host}`] } : {},
              );
              if (rollbackSome && i++ % 3 === 0) lease.rollback();
              else lease.commit();
            } catch (e) {
              expect(e).toBeInstanceOf(Error);
            }
          }
          const held = ipam.owned().map((o) => ipam.allocationOf(o)!.ips[0]!);
          expect(new Set(held).size).toBe(held.length);
          expect(range.usedCount).toBe(held.length);
          const macs = ipam.owned().map((o) => ipam.allocationOf(o)!.mac);
          expect(new Set(macs).size).toBe(macs.length);
          for (const ip of held) {
            const a = parseAddress(ip)!;
            expect(() => range.validate(a)).not.toThrow();
          }
          // Release everything: every address can be handed out again.
          const all = [...held];
          for (const o of ipam.owned()) ipam.release(o);
          expect(range.usedCount).toBe(0);
          for (const [j, ip] of all.entries()) {
            expect(take(ipam, `again${j}`, 's', { ips: [ip] }).ips[0]).toBe(ip);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('next-free fills a small subnet exactly: every usable address once, then exhaustion', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 26, max: 30 }),
        fc.constantFrom('next-free' as const, 'random' as const),
        (prefix, strategy) => {
          const ipam = new Ipam([{ name: 's', cidr: `10.7.0.0/${prefix}` }], strategy);
          const usable = 2 ** (32 - prefix) - 3;
          const got = new Set<string>();
          for (let i = 0; i < usable; i++) got.add(take(ipam, `p${i}`, 's').ips[0]!);
          expect(got.size).toBe(usable);
          expect(() => ipam.lease('extra', 's')).toThrow(ExhaustedError);
        },
      ),
      { numRuns: 20 },
    );
  });
});
