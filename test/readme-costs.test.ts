/**
 * The "What it costs" box of each extension README states the bytes the extension adds to every
 * provider request. They must be what bench's `request-footprint` measures (one real session per
 * extension, the first request compared with the same request without extensions), so the box
 * cannot drift from the product.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

interface FootprintMetric {
	readonly value: number;
	readonly context?: { readonly perExtension?: Record<string, { bytes: number; tokens: number }> };
}

// bench/ is its own workspace package; a computed specifier keeps it out of this project's typecheck.
const footprintUrl = new URL("../bench/metrics/footprint.ts", import.meta.url).href;

/** The README's claim: "**Every request…:** N bytes (about T tokens)". */
function claimed(name: string): { bytes: number; tokens: number } {
	const readme = readFileSync(join(repoRoot, "packages", name, "README.md"), "utf8");
	const match = /\*\*Every request[^*]*:\*\*\s*([\d,]+) bytes \(about (\d+) tokens\)/.exec(readme);
	if (!match) throw new Error(`packages/${name}/README.md states no per-request bytes`);
	return { bytes: Number((match[1] ?? "").replace(/,/g, "")), tokens: Number(match[2]) };
}

describe("README cost boxes match the measured request footprint", () => {
	it("pi-reset, pi-goal and pi-jscpd state the bytes (and about the tokens) each adds to every request", async () => {
		const { requestFootprint } = (await import(footprintUrl)) as {
			requestFootprint: (smoke: boolean) => Promise<FootprintMetric[]>;
		};
		const [footprint] = await requestFootprint(true);
		const measured = footprint?.context?.perExtension ?? {};
		for (const name of ["pi-reset", "pi-goal", "pi-jscpd"]) {
			const claim = claimed(name);
			expect({ name, bytes: claim.bytes }).toEqual({ name, bytes: measured[name]?.bytes });
			expect(Math.abs(claim.tokens - (measured[name]?.tokens ?? 0)), name).toBeLessThanOrEqual(5);
		}
	}, 300_000);
});

/** The tools the README's cost box names ("for the `new_context` and `context_recall` tool declarations"). */
function costedTools(name: string): string[] {
	const readme = readFileSync(join(repoRoot, "packages", name, "README.md"), "utf8");
	const box = /\*\*Every request[^*]*:\*\*([\s\S]*?)(?:\n> - \*\*|\n\n)/.exec(readme)?.[1] ?? "";
	return [...box.matchAll(/`([a-z]+_[a-z_]+)`/g)].map((match) => match[1] ?? "");
}

describe("the 0.1.0 CHANGELOG states the README's cost", () => {
	it.each(["pi-reset", "pi-goal", "pi-jscpd"])(
		"%s: the same bytes and tokens on every request, and every tool declared for them",
		(name) => {
			const changelog = readFileSync(join(repoRoot, "packages", name, "CHANGELOG.md"), "utf8");
			const entry = changelog.split(/^## /m).find((section) => section.startsWith("0.1.0")) ?? "";
			const cost = /\*\*Cost:\*\*\s*([\d,]+) bytes \(about (\d+) tokens\)/.exec(entry);
			const claim = claimed(name);
			expect({ bytes: Number((cost?.[1] ?? "").replace(/,/g, "")), tokens: Number(cost?.[2]) }).toEqual(
				claim,
			);
			const tools = costedTools(name);
			expect(tools.length, "the README's cost box names the declared tools").toBeGreaterThan(0);
			expect(tools.filter((tool) => !entry.includes(`\`${tool}\``))).toEqual([]);
		},
	);
});
