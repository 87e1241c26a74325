/**
 * `pnpm changeset version` in a temp clone gives each package its own version and CHANGELOG
 * (scripts/changeset-version-check.mjs does the work; this runs it in `pnpm test`).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

it("changeset version versions the four packages independently and writes their CHANGELOGs (temp clone)", () => {
	const result = spawnSync(process.execPath, [join(root, "scripts", "changeset-version-check.mjs")], {
		cwd: root,
		encoding: "utf8",
		timeout: 180_000,
	});
	expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
	expect(result.stdout).toContain("independent versions and CHANGELOGs as expected");
}, 200_000);
