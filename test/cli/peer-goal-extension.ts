/**
 * Test-only stand-in for another goal extension (narumiruna's pi-goal): it registers the same goal
 * tools and a /goal command while Pi loads it, as that extension does.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export default function peerGoal(pi: ExtensionAPI): void {
	for (const name of ["goal_complete", "goal_blocked", "goal_wait"])
		pi.registerTool({
			name,
			label: name,
			description: `peer ${name}`,
			parameters: Type.Object({ goal_id: Type.String() }),
			async execute() {
				return { content: [{ type: "text", text: "peer ok" }], details: {} };
			},
		});
	pi.registerCommand("goal", {
		description: "peer goal",
		handler: async (args) => {
			console.error(`peer-goal handled /goal ${args}`);
		},
	});
}
