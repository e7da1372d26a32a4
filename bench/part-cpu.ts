/**
 * CPU time of every part that serves a request in the cluster layout, from /proc: the Parley
 * processes, nginx (master and workers), PostgreSQL (the postmaster, its background processes
 * and the backends connected to the benchmark's database; other databases' backends are left
 * out, since the server is shared) and Redis (the whole redis-server process: it cannot be split
 * by client). A sample maps each pid to its user + system seconds (all threads); the CPU of a
 * window is the growth of every pid alive at its end (a pid born during the window counts from
 * zero; a backend that exits during it is lost, which Parley's pool, kept open under load, avoids).
 */
import fs from "node:fs";
import { cpuSeconds } from "./servers.ts";

/** The parts whose CPU the cluster scenario reports. */
export const PARTS = ["parley", "postgres", "redis", "nginx"] as const;
export type Part = (typeof PARTS)[number];

/** CPU seconds per part. */
export type PartCpu = Record<Part, number>;

/** CPU seconds of each pid of each part at one moment. */
export type CpuSample = Record<Part, Map<number, number>>;

/** What to count: the Parley pids, nginx's master pid (its workers are its children) and the database name. */
export type CountedProcesses = { parley: readonly number[]; nginxMaster: number; database: string };

/** A process: its pid, its parent's and its command name. */
export type ProcessInfo = { pid: number; ppid: number; comm: string };

/** Every process of the machine, from /proc. */
export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.push({ pid: Number(name), ppid, comm });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function title(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/** A backend's title names its client ("127.0.0.1(34490)" or "[local]"); background processes' do not. */
const CLIENT = /\s(\d[\d.:a-f]*\(\d+\)|\[local\])(\s|$)/;

function postgresPids(all: ProcessInfo[], database: string): number[] {
  const ours = new RegExp(`^postgres: \\S+: \\S+ ${database} `);
  return all
    .filter((p) => p.comm === "postgres")
    .filter((p) => {
      const t = title(p.pid);
      return !CLIENT.test(t) || ours.test(t);
    })
    .map((p) => p.pid);
}

function seconds(pids: number[]): Map<number, number> {
  const map = new Map<number, number>();
  for (const pid of pids) {
    const s = cpuSeconds(pid);
    if (s !== null) map.set(pid, s);
  }
  return map;
}

/** Reads the CPU of every counted process now. */
export function sampleCpu(counted: CountedProcesses): CpuSample {
  const all = listProcesses();
  const master = counted.nginxMaster;
  const nginx = [master, ...all.filter((p) => p.ppid === master).map((p) => p.pid)];
  return {
    parley: seconds([...counted.parley]),
    postgres: seconds(postgresPids(all, counted.database)),
    redis: seconds(all.filter((p) => p.comm === "redis-server").map((p) => p.pid)),
    nginx: seconds(nginx),
  };
}

/** CPU seconds per part between two samples. */
export function cpuBetween(before: CpuSample, after: CpuSample): PartCpu {
  const grown = (part: Part) => [...after[part]].reduce((sum, [pid, s]) => sum + s - (before[part].get(pid) ?? 0), 0);
  return { parley: grown("parley"), postgres: grown("postgres"), redis: grown("redis"), nginx: grown("nginx") };
}

/** The sum over the parts. */
export function totalCpu(cpu: PartCpu): number {
  return PARTS.reduce((sum, part) => sum + cpu[part], 0);
}
