// Builds the page into dist/ (committed; embedded in the signaltty binary by signaltty-web).
// Deterministic: no timestamps, no source maps, fixed target, so `.ci/run` can rebuild and
// compare byte for byte.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: { app: "src/app.ts" },
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  outdir: "dist",
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync("src/index.html", "dist/index.html");
