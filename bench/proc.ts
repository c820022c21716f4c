/**
 * Whole-process measurements for the benches, read from Linux `/proc` (no sampling inside the
 * measured process, so the numbers include everything: JS, libuv threads, SQLite, GC).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ; 100 on Linux x86-64). */
const USER_HZ = 100;

/** CPU time (user + system, all threads) of a process so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ; // utime, stime (fields 14 and 15)
}

/** Resident set size of a process now, in bytes (`VmRSS`). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * Peak resident set size of a process since it started, in bytes (`VmHWM`, kept by the kernel: no
 * sampling can miss a short peak). Includes set-up (creating monitors), not only a window.
 */
export function peakRssBytes(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** A running process's CPU share (1.0 = one core) over a window, and its peak RSS. */
export class ProcessWindow {
  readonly pid: number;
  #cpu0: number;
  #t0 = performance.now();

  /** Starts measuring `pid` now. (No parameter property: bench targets import this file under Node's type stripping, which refuses them.) */
  constructor(pid: number) {
    this.pid = pid;
    this.#cpu0 = cpuSeconds(pid);
  }

  /** Ends the window: CPU in cores (CPU seconds / wall seconds), peak RSS since process start (VmHWM) and RSS now, in bytes. */
  end(): { cpuCores: number; peakRss: number; rss: number; wallS: number } {
    const wallS = (performance.now() - this.#t0) / 1000;
    return { cpuCores: (cpuSeconds(this.pid) - this.#cpu0) / wallS, peakRss: peakRssBytes(this.pid), rss: rssBytes(this.pid), wallS };
  }
}

/** The q-quantile (0..1) of numbers, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median of numbers. */
export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** A child process with its stdout lines, started with piped stdout/stderr. */
export interface Child {
  proc: ChildProcess;
  /** Resolves with the next stdout line (lines are queued if nobody waits). */
  nextLine(): Promise<string>;
  stderr(): string;
}

/** Spawns `cmd args` and collects stdout line by line. */
export function startChild(cmd: string, args: string[], env: Record<string, string> = {}): Child {
  const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  let buf = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return {
    proc,
    nextLine: () => {
      const l = lines.shift();
      return l !== undefined ? Promise.resolve(l) : new Promise((r) => waiters.push(r));
    },
    stderr: () => err,
  };
}

/** Sleeps `ms` milliseconds (benches only: they measure over wall-clock windows). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Samples the open file descriptors of `pid` (entries of /proc/<pid>/fd) every second, from now on;
 * `peak()` takes a last sample, stops, and returns the largest count seen (a process that exited
 * counts as no descriptors).
 */
export function fdSampler(pid: number): { peak(): number } {
  let max = 0;
  const sample = () => {
    try {
      max = Math.max(max, readdirSync(`/proc/${pid}/fd`).length);
    } catch {
      // the process exited: nothing open
    }
  };
  sample();
  const t = setInterval(sample, 1000);
  return { peak: () => (clearInterval(t), sample(), max) };
}
