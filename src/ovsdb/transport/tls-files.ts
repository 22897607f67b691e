/**
 * TLS settings given as file paths (`keyFile`, `certFile`, `caFile`, as
 * `ovn-nbctl --private-key=FILE` and ovsdbapp take them), read into PEM text
 * each time a connection is opened, so that rotated certificates are used on
 * the next reconnection. Node only.
 * @module
 */

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { OvsdbError } from '../wire/errors.js';
import { checkTlsOptions, type TlsOptions } from './tls-options.js';

/**
 * `tls` with its files read: `keyFile`, `certFile` and `caFile` replaced by
 * `key`, `cert` and `ca` holding the files' text, each checked to be PEM of
 * the right kind.
 * @throws OvsdbError naming the option and the path when a file cannot be
 *   read or holds no PEM private key (`keyFile`) or certificate (`certFile`,
 *   `caFile`); the file system error is its `cause`.
 */
export async function loadTlsFiles(tls: TlsOptions): Promise<TlsOptions> {
  checkTlsOptions(tls);
  const { keyFile, certFile, caFile, ...rest } = tls;
  const [key, cert, ca] = await Promise.all([
    readPem('keyFile', keyFile, 'private key'),
    readPem('certFile', certFile, 'certificate'),
    readPem('caFile', caFile, 'certificate'),
  ]);
  return {
    ...rest,
    ...(key === undefined ? {} : { key }),
    ...(cert === undefined ? {} : { cert }),
    ...(ca === undefined ? {} : { ca }),
  };
}

async function readPem(
  option: string,
  path: string | undefined,
  kind: 'private key' | 'certificate',
): Promise<string | undefined> {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'a directory, not a file'
            : (e as Error).message;
    throw new OvsdbError(`tls.${option} ${path}: cannot read: ${reason}`, { cause: e });
  }
  try {
    if (kind === 'private key') createPrivateKey(text);
    else new X509Certificate(text);
  } catch (e) {
    throw new OvsdbError(`tls.${option} ${path}: holds no PEM ${kind}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return text;
}
