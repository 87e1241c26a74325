// Faux script for the triage TUI test: the model copies src/a.ts into src/b.ts, answers the fix
// request, then works on another task until the test creates the PI_TUI_GATE file.
import { existsSync } from "node:fs";
import { duplicatedFunction } from "./duplicate.mjs";

const gate = process.env.PI_TUI_GATE ?? "";
const opened = async () => {
	while (gate && !existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 50));
};
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage([fauxToolCall("write", { path: "src/b.ts", content: duplicatedFunction("beta") })], {
		stopReason: "toolUse",
	}),
	fauxAssistantMessage(fauxText("Wrote b.ts.")),
	fauxAssistantMessage(fauxText("I will extract the shared code.")),
	async () => {
		await opened();
		return fauxAssistantMessage(fauxText("Finished the other task."));
	},
];
