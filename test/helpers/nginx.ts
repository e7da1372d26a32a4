/**
 * nginx in front of Parley processes, as deploy/nginx.conf lays it out, for the cluster suite
 * (test/api/cluster.test.ts) and the cluster benchmark (bench/scenario-cluster.ts): finding
 * Debian's nginx, and a configuration in a temporary directory (ports: test/helpers/ports.ts)
 * that runs deploy/nginx.conf on 127.0.0.1 with its ports replaced.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The ports deploy/nginx.conf names, one per process. */
const DEPLOYED_PORTS = ["9991", "9992", "9993"];

/** Debian's nginx is in /usr/sbin, which a user's PATH may lack. */
export function findNginx(): string {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/sbin"];
  for (const dir of dirs) {
    const file = path.join(dir, "nginx");
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  throw new Error("nginx is missing (apt-get install -y nginx; .ci/run installs it)");
}

/** What the main block adds around deploy/nginx.conf's site. */
export type NginxOptions = {
  /** A response header naming the processes nginx passed the request to ($upstream_addr). */
  upstreamHeader?: string;
  /** worker_connections (256 by default); each proxied request holds two, the client's and the upstream's. */
  workerConnections?: number;
  /**
   * worker_processes (1 by default; "auto": one per core, as Debian's nginx.conf has it). With
   * more than one, the site listens with `reuseport`, so the kernel spreads connections over
   * the workers evenly rather than the busiest worker taking most of them.
   */
  workers?: number | "auto";
};

/** The hard limit of open files this process (and nginx, its child) may raise its own to. */
function openFilesLimit(): number {
  try {
    const match = /^Max open files\s+\S+\s+(\d+|unlimited)/m.exec(fs.readFileSync("/proc/self/limits", "utf8"));
    if (match && match[1] !== "unlimited") return Number(match[1]);
  } catch {
    // no /proc
  }
  return 1 << 20;
}

/**
 * deploy/nginx.conf's site listening on 127.0.0.1:`listenPort` and proxying to `ports` (one to
 * three processes) instead of 9991-9993; with fewer than three, the upstreams and map lines of
 * the missing ones are left out. Its comments are dropped.
 */
export function nginxSite(listenPort: number, ports: readonly number[], reusePort = false): string {
  if (ports.length < 1 || ports.length > DEPLOYED_PORTS.length) throw new Error(`deploy/nginx.conf names ${DEPLOYED_PORTS.length} processes; got ${ports.length} ports`);
  let site = fs
    .readFileSync(path.join(ROOT, "deploy/nginx.conf"), "utf8")
    .replace(/^\s*#.*\n/gm, "")
    .replace(/^\s*listen \[::\]:80;\n/m, "")
    .replace(/^(\s*)listen 80;$/m, `$1listen 127.0.0.1:${listenPort}${reusePort ? " reuseport" : ""};`);
  for (const unused of DEPLOYED_PORTS.slice(ports.length)) {
    site = site
      .replace(new RegExp(`^upstream parley_${unused} \\{[^}]*\\}\\n`, "m"), "")
      .replace(new RegExp(`^\\s*server 127\\.0\\.0\\.1:${unused};\\n`, "m"), "")
      .replace(new RegExp(`^\\s*"~\\^${unused}\\(:\\|%3\\[Aa\\]\\)" parley_${unused};\\n`, "m"), "");
  }
  site = site.replace(/(?<!\d)999([1-3])(?!\d)/g, (_, i: string) => String(ports[Number(i) - 1]));
  if (!site.includes(`listen 127.0.0.1:${listenPort}`) || /(?<!\d)999[1-3](?!\d)|undefined/.test(site)) {
    throw new Error("deploy/nginx.conf changed shape: update test/helpers/nginx.ts");
  }
  return site;
}

/** nginx's whole configuration: a main block of its own (temporary paths under `dir`, no access log) around the site. */
export function nginxConfig(dir: string, listenPort: number, ports: readonly number[], opts: NginxOptions = {}): string {
  const connections = opts.workerConnections ?? 256;
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => `  ${name}_temp_path ${path.join(dir, name)};`);
  // As root, nginx's workers would run as nobody, who cannot enter this private directory.
  const user = process.getuid?.() === 0 ? ["user root;"] : [];
  const header = opts.upstreamHeader ? [`  add_header ${opts.upstreamHeader} $upstream_addr always;`] : [];
  const files = connections > 256 ? [`worker_rlimit_nofile ${Math.min(connections * 2 + 100, openFilesLimit())};`] : [];
  const workers = opts.workers ?? 1;
  return [...user, `worker_processes ${workers};`, ...files, `events { worker_connections ${connections}; }`, "http {", "  access_log off;", ...header, ...temp, nginxSite(listenPort, ports, workers !== 1), "}", ""].join("\n");
}

/**
 * Writes the configuration into a new temporary directory; returns it (remove it after nginx
 * stops) and nginx's arguments: in the foreground, logging errors to stderr.
 */
export function prepareNginx(listenPort: number, ports: readonly number[], opts: NginxOptions = {}): { dir: string; args: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-nginx-"));
  const confFile = path.join(dir, "nginx.conf");
  fs.writeFileSync(confFile, nginxConfig(dir, listenPort, ports, opts));
  const globals = `daemon off; pid ${path.join(dir, "nginx.pid")}; error_log stderr;`;
  return { dir, args: ["-p", dir, "-c", confFile, "-g", globals] };
}
