import { reply, requestTexts, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
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

function project(files: Record<string, string>) {
	const root = tempDir("pi-jscpd-project-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, files);
	return { root, agentDir };
}

describe("automatic checkpoint (scripted sessions, real jscpd)", () => {
	it("after settle exactly one findings message exists, no extra provider request was made, and the next request contains it", async () => {
		const { root, agentDir } = project({ "src/a.ts": duplicatedFunction("computeTotals") });
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("I wrote b.ts"),
		);
		await s.prompt("write b.ts");
		expect(s.providerCalls).toBe(2);
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const [message] = customMessages(s, FINDINGS);
		expect(String(message?.content)).toContain("src/b.ts");
		expect(message?.details?.findings?.[0]?.label).toBe("matches-existing");
		// Print/json mode (no UI): in model context, out of the transcript display.
		expect(message).toMatchObject({ display: false });
		expect(s.providerCalls).toBe(2);
		expect(s.errors).toEqual([]);

		s.script(reply("noted"));
		await s.prompt("next");
		const last = s.requests.at(-1);
		expect(last && requestTexts(last).join("\n")).toContain("jscpd: 1 new duplicated block");
		// Settling again without a new mutation does not re-check or re-deliver.
		await new Promise((resolve) => setImmediate(resolve));
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
	});

	it("findings a jscpd_run changed result delivered to the model are acknowledged: the checkpoint does not repeat them", async () => {
		const { root, agentDir } = project({ "src/a.ts": duplicatedFunction("computeTotals") });
		const s = await jscpdSession({ project: root, agentDir, session: "file" });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			toolCall("jscpd_run", { command: "changed" }),
			reply("I saw the duplicate"),
		);
		await s.prompt("write b.ts and check it");
		expect(JSON.stringify(s.requests.at(-1)?.messages.at(-1))).toContain("1 new duplicate(s)");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(s.controller.status().acknowledged).toBe(1);
		// The acknowledgement is rebuilt from the tool result on reload.
		await s.reload();
		await s.controller.settled();
		expect(s.controller.status().acknowledged).toBe(1);
		// `/jscpd changed` shows the user, not the model: it acknowledges nothing.
		s.script(
			toolCall("edit", { path: "src/b.ts", edits: [{ oldText: "computeOrder", newText: "computeOrders" }] }),
		);
		s.script(reply("renamed"));
		await s.prompt("rename");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	});

	it("duplicates that existed before the session are not reported", async () => {
		const { root, agentDir } = project({
			"src/a.ts": duplicatedFunction("computeTotals"),
			"src/b.ts": duplicatedFunction("computeOrder"),
		});
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		s.script(
			toolCall("edit", {
				path: "src/a.ts",
				edits: [
					{
						oldText: "export function computeTotals",
						newText: "// Totals for an order.\nexport function computeTotals",
					},
				],
			}),
			toolCall("write", { path: "src/c.ts", content: otherFunction("countWords") }),
			reply("done"),
		);
		await s.prompt("touch a.ts and add c.ts");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(s.controller.status().changedFiles).toBe(2);
		// Run the explicit changed comparison through the tool to see the verdict deterministically.
		s.script(toolCall("jscpd_run", { command: "changed" }), reply("ok"));
		await s.prompt("check");
		const toolText = JSON.stringify(s.requests.at(-1)?.messages.at(-1));
		expect(toolText).toContain("no new duplicates");
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
	});
});
