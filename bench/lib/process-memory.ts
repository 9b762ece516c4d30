import { readFile } from 'node:fs/promises';

/** A process's resident memory now and at its peak so far (the kernel's VmRSS and VmHWM), in MiB. */
export interface ResidentMemory {
  nowMiB: number;
  peakMiB: number;
}

/** Reads /proc/<pid>/status (Linux): the peak is the kernel's, however briefly it was reached. */
export async function residentMemory(pid: number): Promise<ResidentMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { nowMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}
