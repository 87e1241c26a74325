// Faux script: one answer (its prompt is over Pi's threshold, so Pi compacts after it), then the
// answer to the summarising extension's own call.
export default ({ fauxAssistantMessage, fauxText }) => [
	fauxAssistantMessage(fauxText("First answer about the parser work.")),
	fauxAssistantMessage(fauxText("CLI-PEER-SUMMARY: the parser work so far.")),
];
