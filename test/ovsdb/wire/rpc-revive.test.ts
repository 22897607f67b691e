/**
 * `RequestOptions.reviveLargeReply`: the members of a large reply's objects
 * turned into their final form as the reply is parsed.
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import { closePeers, setup } from '../../helpers/rpc-peer.js';

afterEach(closePeers);

describe('JsonRpcPeer: reviving a large reply as it arrives', () => {
  /** A reply over 8 MiB (decoded as it arrives): `{"T": {"k0": {"n": 0}, …}}` as `result`. */
  function largeReply(id: number, idFirst = true): { text: string; members: number } {
    const members = 40_000;
    const rows: string[] = [];
    for (let i = 0; i < members; i++) rows.push(`"k${i}":{"n":${i},"pad":"${'x'.repeat(200)}"}`);
    const result = `{"T":{${rows.join(',')}}}`;
    const text = idFirst
      ? `{"id":${id},"result":${result},"error":null}`
      : `{"result":${result},"error":null,"id":${id}}`;
    expect(text.length).toBeGreaterThan(8 * 1024 * 1024);
    return { text, members };
  }

  it("the request's reviver turns each member of the objects it names as they are parsed", async () => {
    const { peer, client } = setup();
    const paths: string[] = [];
    const reply = peer.request('monitor', [], {
      reviveLargeReply: (path, target) => {
        paths.push(JSON.stringify(path));
        expect(Object.keys(target)).toEqual([]);
        return path.length === 1 && path[0] === 'T'
          ? (key, value) => `${key}=${(value as { n: number }).n}`
          : undefined;
      },
    });
    const { text, members } = largeReply(0);
    client.injectBytes(text, 64 * 1024);
    const result = (await reply) as { T: Record<string, string> };
    expect(paths).toEqual(['[]', '["T"]']);
    const values = Object.values(result.T);
    expect(values).toHaveLength(members);
    values.forEach((v, i) => {
      expect(v).toBe(`k${i}=${i}`);
    });
  });

  it('a member revived to undefined is left out, as with a JSON.parse reviver', async () => {
    const { peer, client } = setup();
    const kept: Record<string, unknown> = {};
    const reply = peer.request('monitor', [], {
      reviveLargeReply: (path) =>
        path.length === 1
          ? (key, value) => {
              if (Number(key.slice(1)) % 2 === 0) return value;
              kept[key] = value;
              return undefined;
            }
          : undefined,
    });
    const { text, members } = largeReply(0);
    client.injectBytes(text, 64 * 1024);
    const result = (await reply) as { T: Record<string, unknown> };
    const whole = (JSON.parse(text) as { result: { T: Record<string, unknown> } }).result.T;
    expect(Object.keys(result.T)).toHaveLength(members / 2);
    expect({ ...result.T, ...kept }).toEqual(whole);
  });

  it('a reply whose id comes after its result, and a small reply, are not revived', async () => {
    const { peer, client } = setup();
    const reviveLargeReply = vi.fn(() => (_key: string, value: unknown) => value);
    const late = peer.request('monitor', [], { reviveLargeReply });
    const { text } = largeReply(0, false);
    client.injectBytes(text, 64 * 1024);
    expect(await late).toEqual(JSON.parse(text).result);
    const small = peer.request('monitor', [], { reviveLargeReply });
    client.injectBytes('{"id":1,"result":{"T":{"a":{"n":1}}},"error":null}');
    await expect(small).resolves.toEqual({ T: { a: { n: 1 } } });
    expect(reviveLargeReply).not.toHaveBeenCalled();
  });

  it('a reviver that throws is reported, and the members are kept as parsed', async () => {
    const hookErrors: unknown[] = [];
    const { peer, client } = setup({ onHookError: (e) => hookErrors.push(e) });
    const reply = peer.request('monitor', [], {
      reviveLargeReply: (path) =>
        path.length === 1
          ? (key, value) => {
              if (key === 'k7') throw new Error('not k7');
              return value;
            }
          : undefined,
    });
    const { text } = largeReply(0);
    client.injectBytes(text, 64 * 1024);
    expect(await reply).toEqual(JSON.parse(text).result);
    expect(hookErrors.map((e) => (e as Error).message)).toEqual(['not k7']);
    expect(peer.isClosed).toBe(false);
  });
});
