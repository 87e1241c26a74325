// Faux script: one answer in the window a typed idle `/reset <handoff>` opened.
export default ({ fauxAssistantMessage, fauxText }) => [
	fauxAssistantMessage(fauxText("REPLY-IN-FRESH-WINDOW")),
	fauxAssistantMessage(fauxText("SECOND-REPLY")),
];
