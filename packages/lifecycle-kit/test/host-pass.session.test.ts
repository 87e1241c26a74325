/**
 * Each test pass of the packages (vitest.shared.ts) drives the Pi it names: the dev pin, or with
 * PI_LIFECYCLE_HOST=1.3.0 the oldest supported Pi, both for this suite's imports and for the host the kit's harness runs (what an
 * extension loaded through Pi's loader sees as `@earendil-works/pi-coding-agent`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "@earendil-works/pi-coding-agent";
import { afterAll, expect, it } from "vitest";
import { createScriptedSession } from "../src/testing/index.js";

const root = join(import.meta.dirname, "..", "..", "..");
// As vitest.shared.ts selects it.
const hostVersion = process.env.PI_LIFECYCLE_HOST === "1.3.0" ? "1.3.0" : "latest";
const devPin = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[
	"@earendil-works/pi-coding-agent"
] as string;
const expected = hostVersion === "1.3.0" ? "1.3.0" : devPin;
const dir = mkdtempSync(join(tmpdir(), "pi-lifecycle-host-pass-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`the ${hostVersion} pass runs the harness and Pi's loader on Pi ${expected}`, async () => {
	const probe = join(dir, "probe.ts");
	writeFileSync(
		probe,
		'import { VERSION } from "@earendil-works/pi-coding-agent";\nexport default function (pi: { registerFlag(name: string, options: object): void }) {\n\tpi.registerFlag("host-" + VERSION, { type: "boolean" });\n}\n',
	);
	const harness = await createScriptedSession({ extensionPaths: [probe] });
	expect(harness.errors).toEqual([]);
	const flags = [...harness.session.extensionRunner.getFlags().keys()].filter((name) =>
		name.startsWith("host-"),
	);
	expect({ suite: VERSION, loader: flags }).toEqual({ suite: expected, loader: [`host-${expected}`] });
});
