// Faux script: a stuck goal, the same failing command again and again, so the stuck detector pauses it.
export default ({ fauxAssistantMessage, fauxToolCall }) =>
	Array.from({ length: 12 }, () =>
		fauxAssistantMessage([fauxToolCall("bash", { command: "cat missing-config.json" })], {
			stopReason: "toolUse",
		}),
	);
