/** Clone identity with the real jscpd 5.3.2 on Pi's real agent loop (issue 17, item 1). */
import { reply, retryableError, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	otherFunction,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

async function session(files: Record<string, string>): Promise<JscpdSession> {
	const root = tempDir("pi-jscpd-identity-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, files);
	const s = await jscpdSession({ project: root, agentDir });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	return s;
}

describe("clone identity with the real jscpd", () => {
	it("refactor: a, b and c share a block; removing it from a.ts and touching b.ts reports no b.ts ≈ c.ts", async () => {
		const s = await session({
			"src/a.ts": duplicatedFunction("totalsA"),
			"src/b.ts": duplicatedFunction("totalsB"),
			"src/c.ts": duplicatedFunction("totalsC"),
		});
		s.script(
			toolCall("write", { path: "src/a.ts", content: otherFunction("countWordsA") }),
			toolCall("write", {
				path: "src/b.ts",
				content: `${duplicatedFunction("totalsB")}\nexport const touched = true;\n`,
			}),
			reply("refactored"),
		);
		await s.prompt("remove the copy from a.ts and touch b.ts");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});

	it("edit inside an old duplicated block: the remaining duplicate is not reported as new", async () => {
		const original = duplicatedFunction("totalsA");
		const s = await session({ "src/a.ts": original, "src/b.ts": duplicatedFunction("totalsB") });
		const edited = original.replace(
			"const shipping = subtotal > 100 ? 0 : 9.99;",
			"const shipping = computeShipping(subtotal, items.length);",
		);
		s.script(toolCall("write", { path: "src/a.ts", content: edited }), reply("edited"));
		await s.prompt("change the shipping rule in a.ts");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});

	it("a new copy of a block that already has three copies is reported once, at the new file", async () => {
		const s = await session({
			"src/a.ts": duplicatedFunction("totalsA"),
			"src/b.ts": duplicatedFunction("totalsB"),
			"src/c.ts": duplicatedFunction("totalsC"),
		});
		s.script(
			toolCall("write", { path: "src/d.ts", content: duplicatedFunction("totalsD") }),
			reply("wrote d"),
		);
		await s.prompt("write d.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const findings = customMessages(s, FINDINGS)[0]?.details?.findings ?? [];
		expect(findings).toHaveLength(1);
		expect(findings[0]?.locations.map((l) => l.path)).toContain("src/d.ts");
	});
});

describe("automatic triggers (seed 004): nothing runs during recovery", () => {
	it("no automatic scan during retries: an auto-retry after a write starts no check; the settle does", async () => {
		const s = await session({ "src/a.ts": duplicatedFunction("totalsA") });
		let activeAtRetry: boolean | undefined;
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("totalsB") }),
			retryableError(),
			() => {
				activeAtRetry = s.controller.status().scheduler.automaticActive;
				return reply("done after retry");
			},
		);
		await s.prompt("write b.ts");
		expect(activeAtRetry).toBe(false);
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	});
});
