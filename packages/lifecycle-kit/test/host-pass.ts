/**
 * The host-pass probe, one implementation for both passes' checks: the kit's
 * host-pass.session.test.ts (the harness from src, the packages' vitest config) and the root
 * test/host-pass.test.ts (the harness from the kit's dist, which the root config inlines). Each test
 * imports Pi's `VERSION` itself, so "the suite's imports" are its own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostVersion } from "../../../vitest.shared.js";

export { hostVersion };

const root = join(import.meta.dirname, "..", "..", "..");
const devPin = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[
	"@earendil-works/pi-coding-agent"
] as string;

/** The Pi version the pass must drive: the dev pin, or 1.3.0 with PI_LIFECYCLE_HOST=1.3.0 (vitest.shared.ts). */
export const expectedHost = hostVersion === "1.3.0" ? "1.3.0" : devPin;

/** The part of the kit's `createScriptedSession` the probe uses (src and dist both fit). */
type CreateSession = (options: { extensionPaths: string[] }) => Promise<{
	readonly errors: readonly unknown[];
	readonly session: { readonly extensionRunner: { getFlags(): ReadonlyMap<string, unknown> } };
}>;

/**
 * Loads a probe extension through Pi's loader in a scripted session: it registers a flag named
 * after the `VERSION` its `@earendil-works/pi-coding-agent` import gives it. Returns the load
 * errors and those flags (`host-<version>`).
 */
export async function loaderHosts(create: CreateSession): Promise<{ errors: unknown[]; loader: string[] }> {
	const dir = mkdtempSync(join(tmpdir(), "pi-lifecycle-host-pass-"));
	try {
		const probe = join(dir, "probe.ts");
		writeFileSync(
			probe,
			'import { VERSION } from "@earendil-works/pi-coding-agent";\nexport default function (pi: { registerFlag(name: string, options: object): void }) {\n\tpi.registerFlag("host-" + VERSION, { type: "boolean" });\n}\n',
		);
		const harness = await create({ extensionPaths: [probe] });
		const flags = [...harness.session.extensionRunner.getFlags().keys()];
		return { errors: [...harness.errors], loader: flags.filter((name) => name.startsWith("host-")) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
