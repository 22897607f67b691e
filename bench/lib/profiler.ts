/**
 * CPU profiling of a timed section only (not module loading): when
 * `BENCH_CPU_PROFILE` names a file, {@link startSection} starts V8's
 * sampling profiler through the inspector and {@link endSection} writes the
 * `.cpuprofile` there. Without it both do nothing.
 * @module
 */

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const target = process.env['BENCH_CPU_PROFILE'];
let session: Session | undefined;

/** Start profiling (called just before a timed section starts its clock). */
export async function startSection(): Promise<void> {
  if (target === undefined || target === '') return;
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}

/** Stop profiling and write the profile (called once the section's clock stopped). */
export async function endSection(): Promise<void> {
  if (session === undefined || target === undefined) return;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(target, JSON.stringify(profile));
  session.disconnect();
  session = undefined;
}
