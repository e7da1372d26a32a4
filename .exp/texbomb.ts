import { renderMessage } from "../src/markdown/render.ts";
const ctx = { realmUrl: "http://x" } as never;
const cases: Record<string, string> = {
  bomb: "$$" + "\\def\\a{\\b\\b}\\def\\b{\\c\\c}\\def\\c{\\d\\d}\\def\\d{\\e\\e}\\def\\e{\\f\\f}\\def\\f{\\g\\g}\\def\\g{\\h\\h}\\def\\h{xy}" + "\\a".repeat(50) + "$$",
  nest: "$$" + "{".repeat(4990) + "x" + "}".repeat(4990) + "$$",
  frac: "$$" + "\\frac{".repeat(1600) + "x" + "}{y}".repeat(1600) + "$$",
  sqrt: "$$" + "\\sqrt{".repeat(1600) + "x" + "}".repeat(1600) + "$$",
  long: "$$" + "x^2+".repeat(2400) + "x$$",
  many: "$$x$$ ".repeat(1600),
  href: "$$\\href{javascript:alert(1)}{x}$$",
  rule: "$$\\rule{100000em}{100000em}$$",
};
for (const [name, input] of Object.entries(cases)) {
  const t0 = process.cpuUsage();
  const html = renderMessage(input, ctx).html;
  const ms = (process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1000;
  console.log(name, input.length, ms.toFixed(0), "ms", html.length, html.includes("tex-error"), html.includes("javascript:") ? "JS!" : "");
}
