/**
 * Other extensions' drafts for the new window ride pi-reset's reset proposal (the kit's
 * `pi-lifecycle:new-window:v1`): accepted while a `new_context` reset waits for its boundary,
 * persisted right after the boot message, without a `turn_end` handler of the offering extension.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { offerNewWindowDrafts } from "@pi-lifecycle/lifecycle-kit";
import {
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, gate, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Offers one custom message for the next window after every tool call; records the answers. */
function offerer(answers: boolean[], text = "NEW-WINDOW NOTE"): ExtensionFactory {
	return (pi) => {
		pi.on("tool_execution_end", (_event, ctx) => {
			answers.push(
				offerNewWindowDrafts(pi.events, ctx.sessionManager, "test-offerer", () => [
					{ type: "custom_message", customType: "test/note", content: text, display: false },
				]),
			);
		});
	};
}

function branchKinds(harness: ScriptedSession): string[] {
	return harness.session.sessionManager
		.getBranch()
		.map((e) => (e.type === "custom_message" || e.type === "custom" ? e.customType : e.type));
}

describe("new-window offers", () => {
	it("an offer made while a new_context reset is pending is persisted after the boot message and seen by the first request of the new window", async () => {
		const answers: boolean[] = [];
		harness = await startSession({ extensions: [offerer(answers)] });
		harness.script(toolCall("new_context", { handoff: "H" }), reply("fresh"));
		await harness.prompt("go");
		expect(answers).toEqual([true]);
		const kinds = branchKinds(harness);
		const compaction = kinds.lastIndexOf("compaction");
		expect(kinds.slice(compaction, compaction + 3)).toEqual(["compaction", "pi-reset/boot", "test/note"]);
		expect(allText(harness.requests.at(-1))).toContain("NEW-WINDOW NOTE");
	});

	it("an offer without a pending reset is refused (the offerer keeps its own boundary handler) and nothing is added", async () => {
		const answers: boolean[] = [];
		harness = await startSession({ extensions: [offerer(answers)] });
		harness.script(toolCall("echo", { text: "x" }), reply("done"));
		await harness.prompt("go");
		expect(answers).toEqual([false]);
		expect(branchKinds(harness)).not.toContain("test/note");
	});

	it("a refused offer is not proposed by a later reset", async () => {
		const answers: boolean[] = [];
		harness = await startSession({ extensions: [offerer(answers)] });
		harness.script(toolCall("echo", { text: "x" }), reply("done"));
		await harness.prompt("first");
		harness.script(reply("after reset"));
		await harness.prompt("/reset");
		await harness.prompt("second");
		expect(answers).toEqual([false]);
		expect(branchKinds(harness)).not.toContain("test/note");
	});

	/** Offers one note, at the first `new_context` call only. */
	function offerOnce(answers: boolean[]): ExtensionFactory {
		return (pi) => {
			pi.on("tool_execution_end", (event, ctx) => {
				if (event.toolName !== "new_context" || answers.length > 0) return;
				answers.push(
					offerNewWindowDrafts(pi.events, ctx.sessionManager, "test-offerer", () => [
						{ type: "custom_message", customType: "test/note", content: "STALE NOTE", display: false },
					]),
				);
			});
		};
	}

	it("an offer accepted for a reset that an abort cancelled is not proposed by a later reset", async () => {
		const answers: boolean[] = [];
		harness = await startSession({ extensions: [offerOnce(answers)] });
		const g = gate("offer-abort");
		harness.script(
			toolCalls([
				{ name: "new_context", args: {} },
				{ name: "slow", args: { gate: "offer-abort" } },
			]),
		);
		const run = harness.prompt("start");
		await g.started.promise;
		await harness.abort();
		await run;
		expect(answers).toEqual([true]);
		harness.script(toolCall("new_context", {}), reply("fresh"));
		await harness.prompt("again");
		expect(branchKinds(harness)).toContain("pi-reset/boot");
		expect(branchKinds(harness)).not.toContain("test/note");
		expect(allText(harness.requests.at(-1))).not.toContain("STALE NOTE");
	});

	it("an offer accepted for a reset that /reset off dropped is not proposed by a later reset", async () => {
		const answers: boolean[] = [];
		const offered = deferred();
		const hold = deferred();
		const holding: ExtensionFactory = (pi) => {
			pi.on("tool_execution_end", async (event) => {
				if (event.toolName !== "new_context" || answers.length !== 1) return;
				offered.resolve();
				await hold.promise;
			});
		};
		harness = await startSession({ extensions: [offerOnce(answers), holding] });
		// /reset off cancels the reset and its continuation: the run ends after the tool batch.
		harness.script(toolCall("new_context", {}));
		const run = harness.prompt("start");
		await offered.promise;
		await harness.prompt("/reset off");
		hold.resolve();
		await run;
		expect(answers).toEqual([true]);
		await harness.prompt("/reset on");
		harness.script(toolCall("new_context", {}), reply("fresh"));
		await harness.prompt("again");
		expect(branchKinds(harness)).toContain("pi-reset/boot");
		expect(branchKinds(harness)).not.toContain("test/note");
	});
});
