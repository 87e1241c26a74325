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
