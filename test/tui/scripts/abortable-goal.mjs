// Faux script for the TUI dialog tests. Like gated-goal.mjs, but each gated response also ends when
// Pi aborts the request (/goal pause, session replacement), so an abort never hangs on the gate.
// 1. first response: waits for the gate (or an abort), then "Did part one."
// 2. the next response (e.g. after /goal resume): waits for the gate (or an abort), then
//    "Part two after the resume."
// 3. the model checks its work with a command (pi-goal asks about a goal_complete before any tool
//    work in the goal);
// 4. the model completes the goal with the id of the newest active contract in its context.
import { existsSync } from "node:fs";

const gate = process.env.PI_TUI_GATE ?? "";
const openedOrAborted = async (signal) => {
	while (gate && !existsSync(gate) && !signal?.aborted)
		await new Promise((resolve) => setTimeout(resolve, 50));
};
const lastGoalId = (context) =>
	[...JSON.stringify(context.messages).matchAll(/Goal id: (g-[a-z0-9]+) \(active\)/g)].at(-1)?.[1] ??
	"missing";
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	async (_context, options) => {
		await openedOrAborted(options?.signal);
		return fauxAssistantMessage(fauxText("Did part one."));
	},
	async (_context, options) => {
		await openedOrAborted(options?.signal);
		return fauxAssistantMessage(fauxText("Part two after the resume."));
	},
	fauxAssistantMessage([fauxToolCall("bash", { command: "echo both parts checked" })], {
		stopReason: "toolUse",
	}),
	(context) =>
		fauxAssistantMessage(
			[
				fauxToolCall("goal_complete", {
					goal_id: lastGoalId(context),
					summary: "Both parts done and verified.",
				}),
			],
			{ stopReason: "toolUse" },
		),
];
