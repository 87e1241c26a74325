// Faux script: the model ends the window with new_context, then answers in the fresh window.
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage([fauxToolCall("new_context", { handoff: "CLI-HANDOFF: continue with step two" })], {
		stopReason: "toolUse",
	}),
	fauxAssistantMessage(fauxText("Continuing in the fresh window.")),
];
