/**
 * The real `pi` CLI in the state most users are in (issue 31): a git repository Pi trusts
 * implicitly, which pi-jscpd counts as untrusted (git is never run). In one bash command the agent
 * checks out a branch holding an old copy, writes a lockfile and copies a module: `jscpd_run
 * changed` reports the copy, and neither the old copy the checkout brought in nor the lockfile.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const script = fileURLToPath(new URL("./scripts/jscpd-default-trust.mjs", import.meta.url));
const totals = (
	name: string,
) => `export function ${name}(items: { price: number; qty: number; tax: number }[]) {
	let subtotal = 0;
	let taxTotal = 0;
	for (const item of items) {
		const line = item.price * item.qty;
		subtotal += line;
		taxTotal += line * item.tax;
		if (line > 1000) {
			console.log("large line", line);
		}
	}
	const discount = subtotal > 5000 ? subtotal * 0.05 : 0;
	const shipping = subtotal > 100 ? 0 : 9.99;
	const total = subtotal - discount + shipping + taxTotal;
	return { subtotal, taxTotal, discount, shipping, total };
}
`;

let install: PackedInstall;
let run: PiRun | undefined;
let project: string | undefined;
beforeAll(() => {
	install = installPacked(["pi-jscpd"]);
});
afterAll(() => install?.cleanup());
afterEach(() => {
	run?.cleanup();
	run = undefined;
	if (project) rmSync(project, { recursive: true, force: true });
	project = undefined;
});

function repository(): string {
	const root = mkdtempSync(join(tmpdir(), "pi-lifecycle-cli-jscpd-"));
	const write = (path: string, text: string) => {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	};
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
			cwd: root,
			stdio: "ignore",
		});
	write("package.json", '{ "name": "app" }\n');
	write("src/a.ts", totals("computeTotals"));
	git("init", "-q", "-b", "main");
	git("add", ".");
	git("commit", "-qm", "init");
	git("checkout", "-qb", "feature");
	write("src/legacy.ts", totals("legacyTotals"));
	git("add", ".");
	git("commit", "-qm", "legacy");
	git("checkout", "-q", "main");
	return root;
}

describe("real pi CLI, default trust state, a git repository", () => {
	it("jscpd_run changed reports the agent's copy, not the old copy a checkout brought in nor the lockfile an install wrote", async () => {
		project = repository();
		const extension = install.extensions.find((ext) => ext.name === "pi-jscpd")?.packageDir ?? "";
		run = await runPi({ extensions: [extension], script, prompt: "switch, install and copy", cwd: project });
		expect(run.code, run.stderr).toBe(0);
		const changed = run.events.find(
			(e) => e.type === "tool_execution_end" && (e as { toolName?: string }).toolName === "jscpd_run",
		) as { result?: unknown; isError?: boolean } | undefined;
		expect(changed?.isError, JSON.stringify(changed?.result)).toBe(false);
		const text = JSON.stringify(changed?.result);
		expect(text).toContain("1 new duplicate");
		expect(text).toMatch(/src\/e\.ts:1-16 ≈ src\/(a|legacy)\.ts:1-16/);
		expect(text).not.toMatch(/src\/legacy\.ts:1-16 ≈/);
		expect(text).not.toContain("pnpm-lock.yaml");
	}, 120_000);
});
