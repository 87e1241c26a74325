// Faux script for the headless contract: the scenario comes from PI_LIFECYCLE_GOAL_SCENARIO.
// Every step reads the goal id from the contract the model received.
const goalId = (context) => /Goal id: (g-[a-z0-9]+)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";
const QUOTA =
	"429 insufficient_quota: You exceeded your current quota, please check your plan and billing details.";

export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => {
	const tool = (name, args) => (context) =>
		fauxAssistantMessage([fauxToolCall(name, { goal_id: goalId(context), ...args })], {
			stopReason: "toolUse",
		});
	const complete = tool("goal_complete", { summary: "Both parts done and verified." });
	const checkDeploy = fauxAssistantMessage([fauxToolCall("bash", { command: "echo deployed" })], {
		stopReason: "toolUse",
	});
	const progress = Array.from({ length: 40 }, (_, i) =>
		fauxAssistantMessage(fauxText(`Step ${i + 1}: wrote part ${"x".repeat(i + 1)}.`)),
	);
	switch (process.env.PI_LIFECYCLE_GOAL_SCENARIO) {
		case "complete":
			// No tool work in the goal: the first goal_complete is asked about once, the second accepted.
			return [fauxAssistantMessage(fauxText("Did part one.")), complete, complete];
		case "complete-batch":
			// goal_complete beside a command: Pi's loop asks the model once more after the batch (a
			// batch ends the run only when every call in it does), and the model answers in text.
			return [
				(context) =>
					fauxAssistantMessage(
						[
							fauxToolCall("bash", { command: "echo verified" }),
							fauxToolCall("goal_complete", {
								goal_id: goalId(context),
								summary: "Both parts done and verified.",
							}),
						],
						{ stopReason: "toolUse" },
					),
				fauxAssistantMessage(fauxText("All set: both parts are done.")),
			];
		case "blocked":
			return [tool("goal_blocked", { reason: "Need the API key.", evidence: "401 from the API" })];
		case "progress":
			return progress;
		case "stuck":
			// A stuck model: the same failing command again and again (issue 30: 150 calls, exit 0).
			return Array.from({ length: 40 }, () =>
				fauxAssistantMessage([fauxToolCall("bash", { command: "cat missing-config.json" })], {
					stopReason: "toolUse",
				}),
			);
		case "usage-limit":
			return [fauxAssistantMessage([], { stopReason: "error", errorMessage: QUOTA })];
		case "wait-far":
			return [tool("goal_wait", { reason: "the nightly build", resume_after_ms: 3_600_000 })];
		case "wait-near":
			// After the wake the model checks the deploy, then completes (a goal_complete before any
			// tool work in the goal would be asked about once).
			return [tool("goal_wait", { reason: "the deploy", resume_after_ms: 10_000 }), checkDeploy, complete];
		default:
			return [];
	}
};
