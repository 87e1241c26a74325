/**
 * `pnpm demo` — the main job. Until the full story (issue 7) lands, this is a smoke run of the
 * kit's scripted-session harness on Pi's real agent loop: a tiny extension built on the kit asks
 * Pi for exactly one boundary continuation, and the transcript shows what the model saw.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createBoundaryParticipant, trackLifecycle } from "@pi-lifecycle/lifecycle-kit";
import { createScriptedSession, reply, requestTexts } from "@pi-lifecycle/lifecycle-kit/testing";

function keepGoingOnce(pi: ExtensionAPI): void {
	const identity = trackLifecycle(pi);
	let pending = false;
	const boundary = createBoundaryParticipant(pi, {
		events: ["agent_before_settle"],
		propose: (event) => {
			if (!pending || event.outcome !== "completed") return undefined;
			pending = false;
			boundary.disarm();
			return {
				drafts: [
					{
						type: "custom_message",
						customType: "demo/continue",
						content: "Continue once more.",
						display: false,
					},
				],
				continue: true,
			};
		},
	});
	pi.on("before_agent_start", () => {
		pending = true;
		boundary.arm();
		console.log(`  [extension] run ${identity.runId} started; one continuation armed`);
	});
}

const harness = await createScriptedSession({
	extensions: [keepGoingOnce],
	responses: [reply("First answer."), reply("Second answer, after one continuation.")],
});
try {
	console.log("pi-lifecycle demo (harness smoke run: Pi's real AgentSession + faux provider)\n");
	console.log("> user: hello");
	await harness.prompt("hello");
	for (const request of harness.requests) {
		console.log(`\nprovider request #${request.index} — the model saw:`);
		for (const line of requestTexts(request)) console.log(`  ${line}`);
	}
	const settled = harness.count("agent_settled");
	console.log(
		`\nmodel requests: ${harness.providerCalls}, agent_settled: ${settled}, extension errors: ${harness.errors.length}`,
	);
	if (harness.providerCalls !== 2 || settled !== 1 || harness.errors.length > 0) {
		console.error("demo FAILED: expected exactly one boundary continuation in one settled run");
		process.exitCode = 1;
	} else {
		console.log("demo OK: one prompt, one boundary continuation, one settle.");
	}
} finally {
	await harness.dispose();
}
