// Faux script for the triage TUI test: the model copies src/a.ts into src/b.ts (the automatic
// checkpoint finds it), then answers the first message after the user's /reset.
import { duplicatedFunction } from "./duplicate.mjs";

export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage([fauxToolCall("write", { path: "src/b.ts", content: duplicatedFunction("beta") })], {
		stopReason: "toolUse",
	}),
	fauxAssistantMessage(fauxText("Wrote b.ts.")),
	fauxAssistantMessage(fauxText("Fresh window.")),
];
