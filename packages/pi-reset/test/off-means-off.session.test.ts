/**
 * Issue 16: off means off. While pi-reset is off the model is not shown `new_context` and its
 * guideline line is not in the system prompt; the request prefix changes once at the toggle and is
 * stable while off (measured here).
 */
import { fauxAssistantMessage, fauxText, type Message, type SystemMessage } from "@earendil-works/pi-ai";
import type { DynamicStep, ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

interface Seen {
	readonly system: string;
	readonly tools: string[];
	readonly serialised: string;
}

/**
 * What the model is told, from the transcript as the provider gets it: Pi carries the prompt and
 * the tool declarations in system messages (a leading one, later ones add or remove tools and
 * replace prompt sections).
 */
function recorder(seen: Seen[]): DynamicStep {
	return (context) => {
		const tools = new Set<string>();
		const sections = new Map<string, string | null>();
		// Older hosts pass the prompt and tools beside the messages.
		const legacy = context as { systemPrompt?: string; tools?: { name: string }[] };
		let base = legacy.systemPrompt ?? "";
		for (const tool of legacy.tools ?? []) tools.add(tool.name);
		for (const message of context.messages) {
			if (message.role !== "system") continue;
			const system = message as SystemMessage;
			if (typeof system.content === "string") base += system.content;
			for (const [name, text] of Object.entries(system.sections ?? {})) sections.set(name, text);
			for (const tool of system.toolsAdded ?? []) tools.add(tool.name);
			for (const tool of system.toolsRemoved ?? []) tools.delete(tool.name);
		}
		const system = [base, ...[...sections.values()].filter((text): text is string => text !== null)].join(
			"\n",
		);
		const serialised = JSON.stringify([
			legacy.tools ?? [],
			legacy.systemPrompt ?? "",
			...context.messages.map((m) => {
				const { timestamp: _t, ...rest } = m as Message & { usage?: unknown };
				return { ...rest, usage: undefined };
			}),
		]);
		seen.push({ system, tools: [...tools], serialised });
		return fauxAssistantMessage(fauxText("ok"));
	};
}

/** Share of `before` repeated as the prefix of `after`. */
function prefixShare(before: string, after: string): number {
	let i = 0;
	while (i < before.length && before[i] === after[i]) i++;
	return i / before.length;
}

describe("off means off", () => {
	it("/reset off hides new_context (it has no system-prompt line); the request prefix is kept (measured) and stable while off", async () => {
		const seen: Seen[] = [];
		harness = await startSession();
		harness.script(recorder(seen), recorder(seen), recorder(seen), recorder(seen), recorder(seen));
		await harness.prompt("one");
		expect(seen[0]?.tools).toContain("new_context");
		// No system-prompt line at all (request footprint): only the declaration comes and goes.
		expect(seen[0]?.system).not.toContain("new_context");
		await harness.prompt("/reset off");
		await harness.prompt("two");
		await harness.prompt("three");
		expect(seen[1]?.tools).not.toContain("new_context");
		expect(seen[1]?.system).not.toContain("new_context");
		const atToggle = prefixShare(seen[0]?.serialised ?? "", seen[1]?.serialised ?? "");
		const whileOff = prefixShare(seen[1]?.serialised ?? "", seen[2]?.serialised ?? "");
		// The figure quoted in docs/pi-reset-lifecycle.md ("off means off").
		console.info(
			`prefix kept across /reset off: ${(atToggle * 100).toFixed(1)}%; while off: ${(whileOff * 100).toFixed(1)}%`,
		);
		expect(whileOff).toBeGreaterThan(0.99);
		await harness.prompt("/reset on");
		await harness.prompt("four");
		expect(seen[3]?.tools).toContain("new_context");
		expect(seen[3]?.system).not.toContain("new_context");
		// /reset on appends the change too: the cached prefix of the off-time request is kept.
		const atOn = prefixShare(seen[2]?.serialised ?? "", seen[3]?.serialised ?? "");
		console.info(`prefix kept across /reset on: ${(atOn * 100).toFixed(1)}%`);
		expect(atOn).toBeGreaterThan(0.99);
		expect(harness.errors).toEqual([]);
	});

	it("a session restored with pi-reset off starts without new_context", async () => {
		const seen: Seen[] = [];
		harness = await startSession({ session: "file" });
		await harness.prompt("/reset off");
		await harness.reload();
		harness.script(recorder(seen));
		await harness.prompt("one");
		expect(seen[0]?.tools).not.toContain("new_context");
		expect(seen[0]?.system).not.toContain("new_context");
	});
});
