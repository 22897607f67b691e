/**
 * prom-client and the OpenTelemetry packages as a Node program loads them.
 *
 * The test runner starts its workers with `--conditions module` (from the
 * resolver conditions in vitest.config.ts), and with it Node resolves
 * `@opentelemetry/api` (which prom-client and the OpenTelemetry SDK
 * require) to its ES build, written for bundlers (extensionless imports),
 * which Node cannot load. This maps that build back to the CommonJS one a
 * plain `node` resolves, and gives a `require` to load the packages with.
 */

import Module, { createRequire } from 'node:module';

type Resolve = (this: unknown, request: string, ...rest: unknown[]) => string;
const M = Module as unknown as { _resolveFilename: Resolve; __ovnkitOtelCjs?: true };

if (M.__ovnkitOtelCjs !== true) {
  M.__ovnkitOtelCjs = true;
  const original = M._resolveFilename;
  M._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    const path = original.call(this, request, ...rest);
    return path.includes('/@opentelemetry/api/build/esm/')
      ? path.replace('/@opentelemetry/api/build/esm/', '/@opentelemetry/api/build/src/')
      : path;
  };
}

/** `require`, for prom-client and the OpenTelemetry packages. */
export const requirePackage: NodeJS.Require = createRequire(import.meta.url);
