import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/**
 * CPU time (user + system) a process has used so far, in milliseconds, from /proc/<pid>/stat
 * (Linux; resolution one clock tick, 10 ms on most systems). Unlike wall time it hardly moves
 * when other work loads the machine, so it is reported beside the rates.
 */
export function processCpuMs(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  // The command name (field 2) may hold spaces: the fields after it start past the last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the state field.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}
