// The demo's scripted model: one policy that looks at what it was sent and picks the next step of
// the story. No API key, no network: pi-ai's faux provider calls this for every request.
//
//   1. write src/totals.ts and a copy-pasted src/report.ts
//   2. keep checking until pi-jscpd's quiet finding arrives, then remove the duplicate
//   3. end the window with new_context and a handoff
//   4. in the fresh window, complete the goal with evidence

const THINK_MS = Number(process.env.PI_LIFECYCLE_DEMO_THINK_MS ?? 600);

const SUM = (name) => `export function ${name}(values: number[]): number {
	let total = 0;
	for (const value of values) {
		if (value > 100) {
			total += value * 0.9;
		} else if (value > 10) {
			total += value;
		} else {
			total += 1;
		}
	}
	const rounded = Math.round(total * 100) / 100;
	if (rounded > 10_000) {
		return 10_000;
	}
	return rounded;
}
`;

const REPORT_FIXED = `import { sumOrders } from "./totals.js";

export function reportTotal(values: number[]): string {
	return \`Total: \${sumOrders(values)}\`;
}
`;

function allText(context) {
	return context.messages
		.map((message) => {
			if (typeof message.content === "string") return message.content;
			if (!Array.isArray(message.content)) return "";
			return message.content
				.map((block) =>
					block.type === "text" ? block.text : block.type === "toolCall" ? JSON.stringify(block) : "",
				)
				.join("\n");
		})
		.join("\n");
}

export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => {
	let checks = 0;
	const policy = (context) => {
		const text = allText(context);
		const goalId = [...text.matchAll(/Goal id: (g-[a-z0-9]+) \(active\)/g)].at(-1)?.[1] ?? "missing";
		const tool = (name, args, say) =>
			fauxAssistantMessage([fauxText(say), fauxToolCall(name, args)], { stopReason: "toolUse" });

		if (text.includes("[pi-reset] Context window")) {
			return tool(
				"goal_complete",
				{
					goal_id: goalId,
					summary: "totals.ts holds the only summing function; report.ts imports it (jscpd is clean).",
				},
				"Fresh window: the handoff says the duplicate is gone, so the goal is met.",
			);
		}
		if (text.includes("REPORT-DEDUPED")) {
			return tool(
				"new_context",
				{
					handoff:
						"Duplicate removed: report.ts now imports sumOrders from totals.ts. Next: confirm and complete.",
				},
				"That window did its job; handing off to a fresh one.",
			);
		}
		if (/jscpd: \d+ new duplicated block/.test(text) && text.includes("report.ts")) {
			return fauxAssistantMessage(
				[
					fauxText(
						"pi-jscpd says report.ts copies totals.ts. Replacing the copy with an import. REPORT-DEDUPED",
					),
					fauxToolCall("write", { path: "src/report.ts", content: REPORT_FIXED }),
				],
				{ stopReason: "toolUse" },
			);
		}
		if (!text.includes("WROTE-MODULES")) {
			return fauxAssistantMessage(
				[
					fauxText("Writing the totals module and the report. WROTE-MODULES"),
					fauxToolCall("write", { path: "src/totals.ts", content: SUM("sumOrders") }),
					fauxToolCall("write", {
						path: "src/report.ts",
						content: `${SUM("reportSum")}\nexport function reportTotal(values: number[]): string {\n\treturn \`Total: \${reportSum(values)}\`;\n}\n`,
					}),
				],
				{ stopReason: "toolUse" },
			);
		}
		checks++;
		// A real model takes a while to answer; give pi-jscpd's background check (started when this
		// continuation began) the time it needs, as a model's think time would.
		return new Promise((resolve) =>
			setTimeout(
				() => resolve(fauxAssistantMessage(fauxText(`Reviewing the new modules (check ${checks}).`))),
				THINK_MS,
			),
		);
	};
	return Array.from({ length: 16 }, () => policy);
};
