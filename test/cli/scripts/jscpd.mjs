// Faux script: write two files with the same function, then ask jscpd_run for a project scan.
const body = (name) => `export function ${name}(items: number[]): number {
	let total = 0;
	for (const item of items) {
		if (item > 10) {
			total += item * 2;
		} else if (item > 5) {
			total += item + 3;
		} else {
			total -= 1;
		}
	}
	const scaled = total * 1.5;
	const rounded = Math.round(scaled * 100) / 100;
	if (rounded > 1000) {
		return 1000;
	}
	return rounded;
}
`;
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage(
		[
			fauxToolCall("write", { path: "src/a.ts", content: body("alpha") }),
			fauxToolCall("write", { path: "src/b.ts", content: body("beta") }),
		],
		{ stopReason: "toolUse" },
	),
	fauxAssistantMessage([fauxToolCall("jscpd_run", { command: "scan" })], { stopReason: "toolUse" }),
	fauxAssistantMessage(fauxText("The scan found the duplicate.")),
];
