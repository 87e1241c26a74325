/**
 * `request-footprint`: bytes the extensions add to every provider request, goal or no goal (issue
 * 20). One real session per variant (none, each extension alone, all three) answers the same
 * prompt; the first provider request is serialised as a provider receives it (the whole context:
 * the leading system message with the system prompt and every tool declaration, and the messages;
 * timestamps and usage dropped like `cache-prefix` does) and compared with the same request
 * without extensions. Tokens are estimated as Pi does (chars / 4). Context: per extension, per tool
 * declaration (compact JSON of name, description and schema), the system-prompt bytes, and whether
 * the second request of the session adds the same (declarations stable within a session).
 */
import type { Message } from "@earendil-works/pi-ai";
import { reply } from "@pi-lifecycle/lifecycle-kit/testing";
import { allExtensions, type JscpdController, type NamedFactory, session } from "../lib/extensions.ts";
import { smallProject } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";

/** The six tools the three extensions register. */
const OUR_TOOLS = [
	"new_context",
	"context_recall",
	"goal_complete",
	"goal_blocked",
	"goal_wait",
	"jscpd_run",
];
const DROP = new Set(["timestamp", "usage", "responseId"]);
/** 1,200 B before issue 32 added `context_recall`; 1,400 B with it. */
const TARGET_BYTES = 1_400;

interface SystemMessage {
	role: "system";
	sections?: Record<string, string>;
	toolsAdded?: { name: string }[];
}

interface Measured {
	/** Bytes of the serialised first and second request. */
	readonly requests: number[];
	/** Compact JSON bytes per declared tool (ours only). */
	readonly tools: Record<string, number>;
	/** Our declarations as sent, per request (equal when stable within the session). */
	readonly declarations: string[];
	/** Bytes of the system prompt text (all sections). */
	readonly systemPrompt: number;
}

function serialise(context: unknown): string {
	return JSON.stringify(context, (key, value) => (DROP.has(key) ? undefined : value));
}

async function measure(extensions: NamedFactory[], settled: () => Promise<void>): Promise<Measured> {
	const h = await session(extensions, { cwd: smallProject() });
	const requests: number[] = [];
	const tools: Record<string, number> = {};
	const declarations: string[] = [];
	let systemPrompt = 0;
	const capture = (context: { messages: Message[] }) => {
		requests.push(serialise(context).length);
		const system = context.messages.filter(
			(m) => (m.role as string) === "system",
		) as unknown as SystemMessage[];
		systemPrompt = system.reduce((sum, m) => sum + Object.values(m.sections ?? {}).join("").length, 0);
		const ours = system.flatMap((m) => m.toolsAdded ?? []).filter((tool) => OUR_TOOLS.includes(tool.name));
		for (const tool of ours) tools[tool.name] = JSON.stringify(tool).length;
		declarations.push(JSON.stringify(ours));
	};
	try {
		await settled();
		h.faux.appendResponses([
			((context: { messages: Message[] }) => {
				capture(context);
				return reply("first answer");
			}) as never,
			((context: { messages: Message[] }) => {
				capture(context);
				return reply("second answer");
			}) as never,
		]);
		await h.prompt("What does this project do?");
		await h.prompt("And what next?");
		return { requests, tools, declarations, systemPrompt };
	} finally {
		await settled();
		await h.dispose();
	}
}

const tokens = (bytes: number) => Math.ceil(bytes / 4);

/** See the module comment. */
export async function requestFootprint(_smoke: boolean): Promise<Metric[]> {
	const variants: [string, string[]][] = [
		["none", []],
		["pi-reset", ["pi-reset"]],
		["pi-goal", ["pi-goal"]],
		["pi-jscpd", ["pi-jscpd"]],
		["all", ["pi-reset", "pi-goal", "pi-jscpd"]],
	];
	const results: Record<string, Measured> = {};
	for (const [name, members] of variants) {
		let controller: JscpdController | undefined;
		const extensions = allExtensions((c) => (controller = c)).filter((e) => members.includes(e.name));
		results[name] = await measure(extensions, async () => {
			await controller?.settled();
		});
	}
	const none = results.none as Measured;
	const added = (m: Measured, i: number) => (m.requests[i] ?? Number.NaN) - (none.requests[i] ?? Number.NaN);
	const perExtension: Record<string, { bytes: number; tokens: number; systemPromptBytes: number }> = {};
	for (const [name, m] of Object.entries(results)) {
		if (name === "none") continue;
		perExtension[name] = {
			bytes: added(m, 0),
			tokens: tokens(added(m, 0)),
			systemPromptBytes: m.systemPrompt - none.systemPrompt,
		};
	}
	const all = results.all as Measured;
	const bytes = added(all, 0);
	return [
		metric(
			"request-footprint",
			"bytes all three extensions add to every provider request (tool declarations + system prompt)",
			bytes,
			"B",
			"<=",
			TARGET_BYTES,
			{
				estimatedTokens: tokens(bytes),
				perExtension,
				toolDeclarationBytes: all.tools,
				systemPromptBytesAdded: all.systemPrompt - none.systemPrompt,
				secondRequestAdds: added(all, 1),
				declarationsStableWithinSession:
					all.declarations.length === 2 && all.declarations[0] === all.declarations[1],
				requestBytes: { none: none.requests[0], all: all.requests[0] },
				estimator: "ceil(bytes / 4), Pi's chars/4 estimate",
			},
		),
	];
}
