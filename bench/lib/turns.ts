/** Scripted turns: each prompt is `perPrompt` turns, all but the last calling the built-in read tool. */
import type { FauxResponseStep } from "@earendil-works/pi-ai";
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";

/** Steps for one prompt of `turns` turns (turns - 1 read calls, then a short answer). */
export function promptSteps(turns: number, prompt: number): FauxResponseStep[] {
	const steps: FauxResponseStep[] = [];
	for (let t = 0; t < turns - 1; t++)
		steps.push(toolCall("read", { path: "note.txt" }, `Reading (step ${prompt}.${t}).`));
	steps.push(reply(`Done with prompt ${prompt}.`));
	return steps;
}

/** Runs `turns` turns as prompts of `perPrompt` turns each. Steps are queued unrecorded (no clone per request). */
export async function runTurns(h: ScriptedSession, turns: number, perPrompt = 10, first = 0): Promise<void> {
	for (let p = 0; p * perPrompt < turns; p++) {
		const n = Math.min(perPrompt, turns - p * perPrompt);
		h.faux.appendResponses(promptSteps(n, first + p));
		await h.prompt(`Task ${first + p}: read note.txt and report.`);
	}
}
