// Faux script: the model reads three large files (a window Pi can compact), answers; after the
// user's idle `/reset <handoff>` it answers once in the fresh window.
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage(
		["a.txt", "b.txt", "c.txt"].map((path) => fauxToolCall("read", { path })),
		{ stopReason: "toolUse" },
	),
	fauxAssistantMessage(fauxText("READ-THE-FILES")),
	fauxAssistantMessage(fauxText("REPLY-IN-FRESH-WINDOW")),
];
