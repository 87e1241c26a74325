#!/usr/bin/env node
// Packs the four publishable packages into .artifacts/packs/ (what `npm publish` would upload):
// pnpm replaces `workspace:*` with real versions. Run after a build (`pnpm pack:all` does both).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// fileURLToPath, not URL.pathname: a checkout under a path with a space or non-ASCII name.
const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, ".artifacts", "packs");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by pnpm for every script it runs.
const pnpm = process.env.npm_execpath;
if (!pnpm) throw new Error("run through pnpm (pnpm pack:all) so npm_execpath is set");
for (const name of ["lifecycle-kit", "pi-reset", "pi-goal", "pi-jscpd"]) {
	execFileSync(pnpm, ["pack", "--pack-destination", out], {
		cwd: join(root, "packages", name),
		stdio: "inherit",
	});
}
console.log(readdirSync(out).join("\n"));
