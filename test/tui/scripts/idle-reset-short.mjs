// Faux script: a short window (far below Pi's compaction.keepRecentTokens); after the user's idle
// `/reset <handoff>` the model answers twice in the fresh window.
export default ({ fauxAssistantMessage, fauxText }) => [
	fauxAssistantMessage(fauxText("SHORT-WINDOW-REPLY")),
	fauxAssistantMessage(fauxText("REPLY-IN-FRESH-WINDOW")),
	fauxAssistantMessage(fauxText("SECOND-REPLY-IN-WINDOW")),
];
