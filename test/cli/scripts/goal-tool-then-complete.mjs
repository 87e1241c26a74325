// Faux script: a tool call (read), then goal_complete with the goal id from the contract.
const goalId = (context) =>
	/Goal id: (g-[a-z0-9]+) \(active\)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";
export default ({ fauxAssistantMessage, fauxToolCall }) => [
	fauxAssistantMessage([fauxToolCall("read", { path: "README.md" })], { stopReason: "toolUse" }),
	(context) =>
		fauxAssistantMessage(
			[fauxToolCall("goal_complete", { goal_id: goalId(context), summary: "Read the file; all verified." })],
			{ stopReason: "toolUse" },
		),
];
