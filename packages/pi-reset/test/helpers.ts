/** Shared scaffolding for pi-reset's scripted-session tests. */
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	type Deferred,
	deferred,
	type RecordedRequest,
	requestTexts,
	type ScriptedSession,
	type ScriptedSessionOptions,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import piReset from "../src/index.js";

/** A gate for the `slow` test tool: `started` resolves when it runs, `release` lets it finish. */
export interface Gate {
	readonly started: Deferred<void>;
	readonly release: Deferred<void>;
}

/** Gates for the `slow` test tool, keyed by the `gate` argument. */
export const gates = new Map<string, Gate>();

/** Creates and registers a gate. */
export function gate(name: string): Gate {
	const created = { started: deferred(), release: deferred() };
	gates.set(name, created);
	return created;
}

/** A test extension with `echo` (returns its text) and `slow` (waits for a gate). */
export const testTools: ExtensionFactory = (pi: ExtensionAPI) => {
	pi.registerTool({
		name: "echo",
		label: "Echo",
		description: "Echo text",
		parameters: Type.Object({ text: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: `echo: ${params.text}` }], details: undefined };
		},
	});
	pi.registerTool({
		name: "slow",
		label: "Slow",
		description: "Waits for a test gate",
		parameters: Type.Object({ gate: Type.String() }),
		async execute(_id, params, signal) {
			const found = gates.get(params.gate);
			if (found) {
				found.started.resolve();
				await Promise.race([
					found.release.promise,
					new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true })),
				]);
			}
			return { content: [{ type: "text", text: `slow ${params.gate} done` }], details: undefined };
		},
	});
};

/** Starts a session with pi-reset and the test tools. */
export function startSession(
	options: ScriptedSessionOptions = {},
	before: readonly ExtensionFactory[] = [],
): Promise<ScriptedSession> {
	return createScriptedSession({
		...options,
		extensions: [
			...before,
			{ name: "pi-reset", factory: piReset },
			{ name: "test-tools", factory: testTools },
			...(options.extensions ?? []),
		],
	});
}

/** All text of one request, joined. */
export function allText(request: RecordedRequest | undefined): string {
	return request ? requestTexts(request).join("\n") : "";
}

/** Session entries of the current branch, by type. */
export function branchTypes(harness: ScriptedSession): string[] {
	return harness.session.sessionManager.getBranch().map((entry) => {
		if (entry.type === "message") return `message:${entry.message.role}`;
		if (entry.type === "custom" || entry.type === "custom_message")
			return `${entry.type}:${entry.customType}`;
		return entry.type;
	});
}

/** A request's text without the mechanical digest block (which quotes the old window's last answer on purpose). */
export function outsideDigest(text: string): string {
	return text.replace(/What the previous window did \(a mechanical digest\):[\s\S]*?\n\n/g, "");
}

/** The closing line of every boot text (texts.ts `closingLine`). */
const BOOT_END =
	/\n(?:Go on from the next action\.[^\n]*|Go on from where the previous window stopped[.;][^\n]*|Continue the task from here\.|Where the user's new message goes on with this task,[^\n]*|Go on with the turn in progress\.|No earlier task is carried over:[^\n]*)/;
const BOOT_TEXT = new RegExp(`\\[pi-reset\\] Context window[\\s\\S]*?${BOOT_END.source}`, "g");

/**
 * A request's text without pi-reset's boot texts: what the new window holds besides the work a
 * reset carries on purpose (the user's latest request and the digest quote the old window).
 */
export function outsideBoot(text: string): string {
	return text.replace(BOOT_TEXT, "[boot]");
}
