// Faux script: a goal that keeps making (different) progress replies and never finishes, so the
// response limit pauses it.
export default ({ fauxAssistantMessage, fauxText }) =>
	Array.from({ length: 12 }, (_, i) => fauxAssistantMessage(fauxText(`Step ${i + 1}: wrote part ${i + 1}.`)));
