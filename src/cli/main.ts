#!/usr/bin/env node
/**
 * The `ovnkit` executable (the package's `bin`): runs {@link runCli} with
 * the process's arguments and sets the exit status.
 * @module
 */

import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2));
