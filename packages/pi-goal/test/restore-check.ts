/**
 * The restore-equals-live check of the crash tests: a crash right before each `pi-goal/state` entry
 * of a working goal (the session file cut there) must restore the tokens, iteration, safety counters
 * and status that entry recorded live.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { goalTokens } from "../src/core/accounting.js";
import { type RestoreLookup, restoreBranch } from "../src/core/persistence.js";
import { countTurn } from "../src/core/safety.js";
import { callsOf, type ResultFacts, resultText, toolStep } from "../src/core/stuck-facts.js";

interface Saved {
	state: { goal: { status: string; iteration: number; usage: never; safety: unknown } | null };
	at: { tokens: number; held?: { automatic: boolean; goalWork: boolean } };
}

interface Line {
	type: string;
	message?: { role?: string; content?: unknown; toolCallId?: string; isError?: boolean };
}

/** The stuck detector's step of the held response: the last assistant message and its results so far. */
function heldStep(lines: readonly string[]) {
	const entries = lines.map((line) => JSON.parse(line) as Line);
	const at = entries.findLastIndex(
		(entry) => entry.type === "message" && entry.message?.role === "assistant",
	);
	const results: ResultFacts[] = entries
		.slice(at + 1)
		.filter((entry) => entry.type === "message" && entry.message?.role === "toolResult")
		.map((entry) => ({
			id: String(entry.message?.toolCallId ?? ""),
			isError: entry.message?.isError === true,
			text: resultText(entry.message?.content),
		}));
	return toolStep(callsOf(entries[at]?.message?.content), results) ?? "reset";
}

/** Cuts `file` before each state entry and compares the restore with what the entry recorded. */
export function restoreMismatches(file: string): { checked: number; mismatches: string[] } {
	const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
	const mismatches: string[] = [];
	let checked = 0;
	lines.forEach((line, index) => {
		const entry = JSON.parse(line) as { type: string; customType?: string; data?: Saved };
		if (entry.type !== "custom" || entry.customType !== "pi-goal/state" || !entry.data?.state.goal) return;
		const cut = `${file}.cut${index}`;
		writeFileSync(cut, `${lines.slice(0, index).join("\n")}\n`);
		const restored = restoreBranch(SessionManager.open(cut) as unknown as RestoreLookup);
		const goal = restored.state.goal;
		const expected = entry.data.state.goal as Saved["state"]["goal"] & {
			id: string;
			safety: { epoch: number };
		};
		// Only entries that do not start a new goal or epoch record the counters the restore must reach.
		if (!goal || goal.id !== expected.id || goal.safety.epoch !== expected.safety.epoch) return;
		checked++;
		const held = entry.data.at.held;
		const safety = held
			? countTurn(
					expected.safety as never,
					{ ...held, toolCalls: 1, text: "", error: false, step: heldStep(lines.slice(0, index)) },
					{ automaticTurns: null, noProgressTurns: null },
				).safety
			: expected.safety;
		const live = {
			tokens: goalTokens(expected.usage, entry.data.at.tokens),
			iteration: expected.iteration,
			safety,
			status: expected.status,
		};
		const got = {
			tokens: goalTokens(goal.usage, restored.branchTotal),
			iteration: goal.iteration,
			safety: goal.safety,
			status: goal.status,
		};
		if (JSON.stringify(live) !== JSON.stringify(got))
			mismatches.push(`line ${index}: live ${JSON.stringify(live)} restored ${JSON.stringify(got)}`);
	});
	return { checked, mismatches };
}
