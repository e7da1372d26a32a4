import { readFileSync } from "node:fs";
import { parse } from "yaml";
const base = process.argv[2];
for (const file of ["../shared/zulip-openapi.yaml", "../shared/zulip-openapi-fl420-generated.yaml"]) {
  const doc = parse(readFileSync(file, "utf8"));
  let total = 0, ok = 0; const missing: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ["get", "post", "patch", "put", "delete"]) {
      const op = item[method]; if (!op) continue;
      total++;
      const url = base + "/api/v1" + path.replace(/\{[^}]+\}/g, "1");
      const res = await fetch(url, { method: method.toUpperCase() });
      const body = await res.text();
      if (body.includes("Endpoint does not exist")) missing.push(`${method.toUpperCase()} ${path}`); else ok++;
    }
  }
  console.log(file, ok, "/", total); for (const m of missing) console.log("  ", m);
}
