// Faux script: a tool call that succeeds (bash echo), then goal_complete with the goal id from the
// contract (a call that failed, such as a read of a missing file, would not be tool work).
const goalId = (context) =>
	/Goal id: (g-[a-z0-9]+) \(active\)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";
export default ({ fauxAssistantMessage, fauxToolCall }) => [
	fauxAssistantMessage([fauxToolCall("bash", { command: "echo checked" })], { stopReason: "toolUse" }),
	(context) =>
		fauxAssistantMessage(
			[fauxToolCall("goal_complete", { goal_id: goalId(context), summary: "Checked; all verified." })],
			{ stopReason: "toolUse" },
		),
];
