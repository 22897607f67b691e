/**
 * A throw-away public key infrastructure for TLS tests, made with `ovs-pki`
 * the way Open vSwitch deployments make theirs.
 * @module
 */

import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TlsOptions } from '../ovsdb/transport/socket-transport.js';
import { requireOvsdbServer } from './ovs-tools.js';

const run = promisify(execFile);

/** A private key and the certificate for it (file paths, PEM). */
export interface PkiCredential {
  /** The certificate's CN and its only `DNS:` subject alternative name. */
  readonly name: string;
  readonly privateKey: string;
  readonly certificate: string;
}

/** The files {@link createPki} made. Every member is an absolute file path (PEM). */
export interface Pki {
  /** The directory holding everything. */
  readonly dir: string;
  /** The CA that signed {@link Pki.server} and {@link Pki.client}. */
  readonly caCert: string;
  /** The server's credential; its name is {@link PKI_SERVER_NAME}. */
  readonly server: PkiCredential;
  /** A client credential the server accepts. */
  readonly client: PkiCredential;
  /**
   * A second CA that has nothing to do with the first (for negative tests);
   * absent when {@link CreatePkiOptions.unrelatedCa} is false.
   */
  readonly otherCaCert?: string | undefined;
  /** A client credential signed by the other CA, which the server refuses. */
  readonly otherClient?: PkiCredential | undefined;
}

/**
 * The name in the server certificate. Connect by IP address with
 * `servername: PKI_SERVER_NAME` so that the host-name check passes.
 */
export const PKI_SERVER_NAME = 'ovsdb-server';

async function ovsPki(tool: string, pkiDir: string, cwd: string, args: string[]): Promise<void> {
  try {
    await run(tool, [`--dir=${pkiDir}`, `--log=${join(cwd, 'ovs-pki.log')}`, ...args], {
      cwd,
      timeout: 60_000,
    });
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(`ovs-pki ${args.join(' ')} failed: ${err.stderr?.trim() || err.message}`, {
      cause: e,
    });
  }
}

async function credential(
  tool: string,
  pkiDir: string,
  cwd: string,
  name: string,
): Promise<PkiCredential> {
  // -u: the CN is exactly `name`; -b: no interactive fingerprint check.
  await ovsPki(tool, pkiDir, cwd, ['--batch', '--unique', '--force', 'req+sign', name, 'switch']);
  return {
    name,
    privateKey: join(cwd, `${name}-privkey.pem`),
    certificate: join(cwd, `${name}-cert.pem`),
  };
}

/** Options of {@link createPki}. */
export interface CreatePkiOptions {
  /**
   * Also make the unrelated CA and its client credential (default true).
   * Skipping them saves about half of the time.
   */
  readonly unrelatedCa?: boolean | undefined;
}

/**
 * Make two unrelated certificate authorities with `ovs-pki` under `dir` (which
 * must be writable; it is created when missing): the first signs a server and
 * a client certificate, the second one client certificate. Takes about two
 * seconds (RSA key generation). Never prompts.
 *
 * ```ts
 * const pki = await createPki(join(tmp, 'pki'));
 * const server = await startOvsdbServer({ schema, remotes: ['ssl'], pki });
 * const conn = await connect(server.remotes.ssl!, { tls: await readClientTls(pki) });
 * ```
 * @throws when `ovs-pki` is not installed or fails.
 */
export async function createPki(dir: string, options: CreatePkiOptions = {}): Promise<Pki> {
  const unrelated = options.unrelatedCa ?? true;
  const tool = requireOvsdbServer(true).ovsPki as string;
  const mainDir = join(dir, 'main');
  const otherDir = join(dir, 'other');
  await mkdir(mainDir, { recursive: true });
  if (unrelated) await mkdir(otherDir, { recursive: true });
  const mainPki = join(mainDir, 'pki');
  const otherPki = join(otherDir, 'pki');
  const makeOther = async () => {
    if (!unrelated) return undefined;
    await ovsPki(tool, otherPki, otherDir, ['--force', 'init']);
    return credential(tool, otherPki, otherDir, 'other-client');
  };
  // Signing with one CA updates its serial and index files: one at a time per CA.
  const makeMain = async () => {
    await ovsPki(tool, mainPki, mainDir, ['--force', 'init']);
    const server = await credential(tool, mainPki, mainDir, PKI_SERVER_NAME);
    const client = await credential(tool, mainPki, mainDir, 'client');
    return { server, client };
  };
  const [{ server, client }, otherClient] = await Promise.all([makeMain(), makeOther()]);
  return {
    dir,
    caCert: join(mainPki, 'switchca', 'cacert.pem'),
    server,
    client,
    otherCaCert: unrelated ? join(otherPki, 'switchca', 'cacert.pem') : undefined,
    otherClient,
  };
}

/** Which files {@link readClientTls} loads. */
export interface ClientTlsChoice {
  /** The client credential to present; `null` for none. Defaults to {@link Pki.client}. */
  readonly credential?: PkiCredential | null | undefined;
  /** The CA certificate file to trust. Defaults to {@link Pki.caCert}. */
  readonly caCert?: string | undefined;
  /** The name the server certificate must carry. Defaults to {@link PKI_SERVER_NAME}. */
  readonly servername?: string | undefined;
}

/**
 * Read the client-side TLS options for `connect`/`openSocketTransport` from a
 * {@link Pki}: by default the client credential, the CA that signed the
 * server, and the server's certificate name.
 */
export async function readClientTls(pki: Pki, choice: ClientTlsChoice = {}): Promise<TlsOptions> {
  const cred = choice.credential === undefined ? pki.client : choice.credential;
  const ca = await readFile(choice.caCert ?? pki.caCert, 'utf8');
  const servername = choice.servername ?? PKI_SERVER_NAME;
  if (cred === null) return { ca, servername };
  const [key, cert] = await Promise.all([
    readFile(cred.privateKey, 'utf8'),
    readFile(cred.certificate, 'utf8'),
  ]);
  return { key, cert, ca, servername };
}
