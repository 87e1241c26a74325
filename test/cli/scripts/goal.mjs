// Faux script: one tool-free step, a check with a command (pi-goal asks about a goal_complete before
// any tool work in the goal), then goal_complete with the goal id from the contract.
const goalId = (context) =>
	/Goal id: (g-[a-z0-9]+) \(active\)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage(fauxText("Did part one.")),
	fauxAssistantMessage([fauxToolCall("bash", { command: "echo both parts checked" })], {
		stopReason: "toolUse",
	}),
	(context) =>
		fauxAssistantMessage(
			[fauxToolCall("goal_complete", { goal_id: goalId(context), summary: "Both parts done and verified." })],
			{ stopReason: "toolUse" },
		),
];
