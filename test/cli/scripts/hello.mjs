// Faux script: one plain answer.
export default ({ fauxAssistantMessage, fauxText }) => [
	fauxAssistantMessage(fauxText("hello from the scripted model")),
];
