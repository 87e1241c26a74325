// Faux script for the TUI tests: the first response waits until the test creates the file named
// by PI_TUI_GATE (so the goal stays active while the test looks at the screen), then the model
// checks its work with a command (pi-goal asks about a goal_complete before any tool work) and
// completes the goal with the id from its contract.
import { existsSync } from "node:fs";

const gate = process.env.PI_TUI_GATE ?? "";
const opened = async () => {
	while (gate && !existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 50));
};
const goalId = (context) =>
	/Goal id: (g-[a-z0-9]+) \(active\)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	async () => {
		await opened();
		return fauxAssistantMessage(fauxText("Did part one."));
	},
	fauxAssistantMessage([fauxToolCall("bash", { command: "echo both parts checked" })], {
		stopReason: "toolUse",
	}),
	(context) =>
		fauxAssistantMessage(
			[fauxToolCall("goal_complete", { goal_id: goalId(context), summary: "Both parts done and verified." })],
			{ stopReason: "toolUse" },
		),
];
