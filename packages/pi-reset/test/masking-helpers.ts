/** Scaffolding for the masking and recall scripted sessions. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { RecordedRequest, ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";

/** Deterministic output of `size` characters for `name`. */
export function outputOf(name: string, size: number): string {
	const line = `${name}: lorem ipsum dolor sit amet ${name.length}\n`;
	return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

/** A test tool `emit` ({name, size, fail?}) that returns {@link outputOf} (an error when `fail`). */
export const emitTool: ExtensionFactory = (pi: ExtensionAPI) => {
	pi.registerTool({
		name: "emit",
		label: "Emit",
		description: "Emit text",
		parameters: Type.Object({
			name: Type.String(),
			size: Type.Number(),
			fail: Type.Optional(Type.Boolean()),
		}),
		async execute(_id, params) {
			// Results of two turns never share a millisecond with a real model between them; the faux
			// provider answers at once, and a reused call id with the same time names one result to
			// pi-reset's stub cache (keyed by call id and time): the reused-id test was flaky under load.
			await new Promise((resolve) => setTimeout(resolve, 2));
			if (params.fail) throw new Error(outputOf(params.name, params.size));
			return { content: [{ type: "text", text: outputOf(params.name, params.size) }], details: undefined };
		},
	});
};

/** A fresh agent dir whose pi-reset.json holds `settings`; returns the dir (set PI_CODING_AGENT_DIR to it). */
export function agentDirWith(settings: unknown): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-reset-masking-"));
	mkdirSync(join(dir, "pi-lifecycle"), { recursive: true });
	writeFileSync(join(dir, "pi-lifecycle", "pi-reset.json"), JSON.stringify(settings));
	return dir;
}

/** A request as a provider sees it (role and content only, in order), for byte comparisons. */
export function wire(request: RecordedRequest | undefined): string {
	const messages = (request?.messages ?? []).filter((m) => (m.role as string) !== "system");
	return JSON.stringify(
		messages.map((m) => {
			const {
				timestamp: _t,
				usage: _u,
				responseId: _r,
				api: _a,
				provider: _p,
				model: _m,
				durationMs: _d,
				...rest
			} = m as Message & Record<string, unknown>;
			return rest;
		}),
	);
}

/** Text of each tool result in a request, in order. */
export function resultTexts(request: RecordedRequest | undefined): string[] {
	return (request?.messages ?? []).flatMap((m) =>
		m.role === "toolResult" ? [m.content.map((b) => (b.type === "text" ? b.text : "")).join("")] : [],
	);
}

/** Stub lines in a request. */
export function stubs(request: RecordedRequest | undefined): string[] {
	return resultTexts(request).filter((text) => text.startsWith("[pi-reset] Old output hidden"));
}

/** The ref named by a stub. */
export function refOf(stub: string): string {
	return /context_recall ref (\S+) returns it/.exec(stub)?.[1] ?? "";
}

/** Tool result entries of the session's branch, in order. */
export function resultEntries(h: ScriptedSession) {
	return h.session.sessionManager
		.getBranch()
		.flatMap((e) =>
			e.type === "message" && e.message.role === "toolResult" ? [{ id: e.id, message: e.message }] : [],
		);
}
