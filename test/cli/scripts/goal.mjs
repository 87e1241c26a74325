// Faux script: one tool-free step, then goal_complete with the goal id from the contract.
const goalId = (context) =>
	/Goal id: (g-[a-z0-9]+) \(active\)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage(fauxText("Did part one.")),
	(context) =>
		fauxAssistantMessage(
			[fauxToolCall("goal_complete", { goal_id: goalId(context), summary: "Both parts done and verified." })],
			{ stopReason: "toolUse" },
		),
];
