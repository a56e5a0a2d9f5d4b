import { readFileSync } from 'node:fs';

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM). */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  )?.[1];
  if (kb === undefined) throw new Error(`no ${field} for ${pid}`);
  return Number(kb) * 1024;
}
