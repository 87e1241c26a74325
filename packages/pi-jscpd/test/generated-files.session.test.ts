/**
 * Files a package manager writes (issue 31, "a false finding costs the user more than silence"): a
 * lockfile repeats the same dependency blocks by design, and jscpd reads `.json` and `.yaml`
 * lockfiles. An install run through bash must not tell the model to extract shared code from its
 * lockfile, in the CLI's default trust state or in a trusted git repository; a real copy made in
 * the same turn is still reported.
 */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	otherFunction,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

/** A pnpm lockfile's package entry: the same shape for every package, as pnpm writes it. */
const pnpmEntry = (name: string) => `  ${name}@1.2.3:
    resolution: {integrity: sha512-0000000000000000000000000000000000000000000000000000000000000000}
    engines: {node: '>=18'}
    cpu: [x64]
    os: [linux]
    libc: [glibc]
    peerDependencies:
      typescript: '>=5.0.0'
    peerDependenciesMeta:
      typescript:
        optional: true
    hasBin: true
`;
const PNPM_LOCK = `lockfileVersion: '9.0'\n\npackages:\n\n${["alpha", "beta", "gamma", "delta"].map(pnpmEntry).join("\n")}`;

/** An npm lockfile's package entries: the same block for every package. */
const NPM_LOCK = `${JSON.stringify(
	{
		name: "app",
		lockfileVersion: 3,
		packages: Object.fromEntries(
			["alpha", "beta", "gamma", "delta"].map((name) => [
				`node_modules/${name}`,
				{
					version: "1.0.0",
					dev: true,
					license: "MIT",
					engines: { node: ">=18" },
					os: ["linux", "darwin"],
					cpu: ["x64", "arm64"],
					peerDependencies: { typescript: ">=5", react: ">=18", vite: ">=5" },
					peerDependenciesMeta: { typescript: { optional: true }, react: { optional: true } },
				},
			]),
		),
	},
	null,
	2,
)}\n`;

async function install(options: { trusted: boolean; git: boolean }) {
	const { root, agentDir } = fixtures.sandbox({
		"package.json": '{ "name": "app" }\n',
		"src/a.ts": duplicatedFunction("computeTotals"),
		"src/w.ts": otherFunction("countWords"),
	});
	if (options.git) gitInit(root);
	const s = await fixtures.ready({ project: root, agentDir, trusted: options.trusted });
	s.script(
		toolCall("write", { path: "pnpm-lock.yaml", content: PNPM_LOCK }),
		toolCall("bash", {
			command: `cat > package-lock.json <<'EOF'\n${NPM_LOCK}EOF\nmkdir -p web && cp pnpm-lock.yaml web/pnpm-lock.yaml`,
		}),
		reply("installed"),
	);
	await s.prompt("install the dependencies");
	await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
	await s.controller.settled();
	return s;
}

describe("generated lockfiles are never findings", () => {
	it("untrusted plain directory: lockfiles an install writes are not new duplicates, and the check is clean", async () => {
		const s = await install({ trusted: false, git: false });
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	}, 120_000);

	it("trusted git repository: lockfiles an install writes are not new duplicates; a copy made next is still reported", async () => {
		const s = await install({ trusted: true, git: true });
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
		s.script(toolCall("bash", { command: "cp src/a.ts src/b.ts" }), reply("copied"));
		await s.prompt("copy");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.content)).toContain(
			"src/b.ts:1-22 ≈ src/a.ts:1-22",
		);
	}, 120_000);
});

/** What a TypeScript build writes for one module: the same compiled code in a CommonJS and an ES module build. */
const compiled = (name: string) => `function ${name}(items) {
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
    return { subtotal, taxTotal, discount, shipping, total: subtotal - discount + shipping + taxTotal };
}
`;
const CJS = `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\nexports.orderTotals = orderTotals;\n${compiled("orderTotals")}//# sourceMappingURL=orders.js.map\n`;
const ESM = `export ${compiled("orderTotals")}//# sourceMappingURL=orders.js.map\n`;

describe("a build's output and generated files are never findings", () => {
	it("untrusted plain directory: the CommonJS and ES module builds of the same module (in lib/, not a default-ignored folder) are not new duplicates; a hand-made copy still is", async () => {
		const { root, agentDir } = fixtures.sandbox({
			"src/a.ts": duplicatedFunction("computeTotals"),
			"src/w.ts": otherFunction("countWords"),
		});
		const s = await fixtures.ready({ project: root, agentDir, trusted: false });
		s.script(
			toolCall("bash", {
				command: `mkdir -p lib/cjs lib/esm && cat > lib/cjs/orders.js <<'EOF'\n${CJS}EOF\ncat > lib/esm/orders.js <<'EOF'\n${ESM}EOF\n`,
			}),
			toolCall("write", {
				path: "src/gen/client.ts",
				content: `// Code generated by api-gen. DO NOT EDIT.\n${duplicatedFunction("clientTotals")}`,
			}),
			reply("built"),
		);
		await s.prompt("build");
		await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
		s.script(
			toolCall("write", { path: "src/orders-copy.js", content: `export ${compiled("orderTotals")}` }),
			reply("copied"),
		);
		await s.prompt("copy the built file into the sources");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details?.findings?.[0]?.locations?.[0])).toContain(
			"src/orders-copy.js",
		);
	}, 120_000);
});
