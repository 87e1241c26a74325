// Faux script for the round-3 headless audit: the scenario comes from PI_LIFECYCLE_GOAL_SCENARIO.
const goalId = (context) => {
	const ids = [...JSON.stringify(context.messages).matchAll(/Goal id: (g-[a-z0-9]+)/g)];
	return ids.at(-1)?.[1] ?? "missing";
};

export default ({ fauxAssistantMessage, fauxToolCall }) => {
	const tool = (name, args) => (context) =>
		fauxAssistantMessage([fauxToolCall(name, { goal_id: goalId(context), ...args })], {
			stopReason: "toolUse",
		});
	const work = (command) =>
		fauxAssistantMessage([fauxToolCall("bash", { command })], { stopReason: "toolUse" });
	const complete = tool("goal_complete", { summary: "Deployed and verified." });
	switch (process.env.PI_LIFECYCLE_GOAL_SCENARIO) {
		case "wait-far":
			return [
				work("echo started"),
				tool("goal_wait", { reason: "the nightly build", resume_after_ms: 3_600_000 }),
			];
		case "resume-complete":
			return [work("echo deployed"), complete];
		default:
			return [];
	}
};
