/**
 * TLS settings ({@link TlsOptions}) and the check of their form, which
 * need no Node module: the database client checks its options with them
 * wherever it runs; `tls-files.ts` and `socket-transport.ts` (Node) use them.
 * @module
 */

import type { PeerCertificate } from 'node:tls';
import { OvsdbError } from '../wire/errors.js';

/**
 * TLS settings for `ssl:` (and `wss:`) remotes. The client's private key, its
 * certificate and the CA certificate are given either as PEM text (`key`,
 * `cert`, `ca`, as Node's `tls.connect` takes them) or as paths of PEM files
 * (`keyFile`, `certFile`, `caFile`, as `ovn-nbctl --private-key=FILE
 * --certificate=FILE --ca-cert=FILE` and ovsdbapp take them); giving both
 * forms of one of them is an error. Files are read each time a connection is
 * opened, so a client that reconnects uses the certificates in the files
 * then: rotate them by replacing the files. A file that cannot be read, or
 * does not hold what it should, fails the connection attempt with an
 * `OvsdbError` naming the option and the path (the database client logs it
 * and retries, as for any failed connection).
 *
 * ```ts
 * const nb = await openDatabase({
 *   remotes: 'ssl:10.0.0.1:6641',
 *   model: NB,
 *   tls: {
 *     keyFile: '/etc/ovn/ovnnb-privkey.pem',
 *     certFile: '/etc/ovn/ovnnb-cert.pem',
 *     caFile: '/etc/ovn/cacert.pem',
 *     checkServerIdentity: () => undefined, // verify the CA only, as ovn-nbctl does
 *   },
 * });
 * ```
 *
 * The server certificate is verified against `ca` by default. Node also checks
 * that the certificate names the host connected to: certificates that
 * `ovs-pki` makes carry their name in the CN and one `DNS:` subject alternative
 * name, so set `servername` to that name when connecting by IP address, or
 * pass a `checkServerIdentity` of your own. (`ovs-vsctl`, `ovn-nbctl` and
 * `ovsdb-server` verify only the CA, not the name; `checkServerIdentity: () =>
 * undefined` does the same.)
 */
export interface TlsOptions {
  /** The client's private key (PEM). `ovsdb-server` refuses clients without a certificate. */
  readonly key?: string | Buffer | undefined;
  /** The client's certificate (PEM). */
  readonly cert?: string | Buffer | undefined;
  /** The CA certificate(s) the server's certificate must chain to (PEM). Defaults to Node's bundled roots. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[] | undefined;
  /** The path of a PEM file holding the client's private key, instead of `key`; read at each connection attempt. */
  readonly keyFile?: string | undefined;
  /** The path of a PEM file holding the client's certificate, instead of `cert`; read at each connection attempt. */
  readonly certFile?: string | undefined;
  /**
   * The path of a PEM file holding the CA certificate(s), instead of `ca`;
   * read at each connection attempt.
   */
  readonly caFile?: string | undefined;
  /** Verify the server's certificate chain. Defaults to `true`; turn it off only in tests. */
  readonly rejectUnauthorized?: boolean | undefined;
  /** The name the server certificate must carry (and the SNI name). Defaults to the remote's host. */
  readonly servername?: string | undefined;
  /** Replaces Node's host-name check: return an Error to refuse the certificate. */
  readonly checkServerIdentity?:
    | ((hostname: string, cert: PeerCertificate) => Error | undefined)
    | undefined;
}

/** Each file option and the PEM option it stands for. */
const PAIRS = [
  ['keyFile', 'key'],
  ['certFile', 'cert'],
  ['caFile', 'ca'],
] as const;

/**
 * Refuse TLS settings that give one thing twice (`key` and `keyFile`, `cert`
 * and `certFile`, `ca` and `caFile`) or a file option that is not a non-empty
 * string.
 * @throws OvsdbError naming the options.
 */
export function checkTlsOptions(tls: TlsOptions | undefined): void {
  if (tls === undefined) return;
  for (const [file, pem] of PAIRS) {
    const path = tls[file];
    if (path === undefined) continue;
    if (typeof path !== 'string' || path === '') {
      throw new OvsdbError(`tls.${file} must be a file path (a non-empty string)`);
    }
    if (tls[pem] !== undefined) {
      throw new OvsdbError(
        `tls.${pem} and tls.${file} are both given: give the PEM text or the file, not both`,
      );
    }
  }
}

/** Whether `tls` names any file to read. */
export function hasTlsFiles(tls: TlsOptions | undefined): tls is TlsOptions {
  return tls !== undefined && PAIRS.some(([file]) => tls[file] !== undefined);
}
