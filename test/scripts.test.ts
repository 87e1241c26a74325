/**
 * First contact is clean: no script of ours lets turbo print its telemetry banner (it appears on the
 * first turbo run on a machine, before the demo's story). Every script that runs turbo disables it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const manifests = [
	"package.json",
	"test/package.json",
	"bench/package.json",
	...readdirSync(join(root, "packages")).map((name) => `packages/${name}/package.json`),
];

describe("turbo telemetry", () => {
	it.each(manifests)("every script in %s that runs turbo sets TURBO_TELEMETRY_DISABLED=1", (manifest) => {
		const scripts = (JSON.parse(readFileSync(join(root, manifest), "utf8")).scripts ?? {}) as Record<
			string,
			string
		>;
		for (const [name, command] of Object.entries(scripts)) {
			if (!/\bturbo\b/.test(command)) continue;
			expect(command, `${manifest} script ${name}`).toMatch(/^TURBO_TELEMETRY_DISABLED=1 /);
		}
	});

	it("the scripts that spawn turbo themselves pass TURBO_TELEMETRY_DISABLED=1", () => {
		for (const file of readdirSync(join(root, "scripts"))) {
			const text = readFileSync(join(root, "scripts", file), "utf8");
			if (/bin\("turbo"\)|"turbo"/.test(text)) expect(text, file).toContain('TURBO_TELEMETRY_DISABLED: "1"');
		}
	});
});
