/**
 * The three extensions as factories from their BUILT packages, a timing proxy for `pi.on`, and a
 * scripted session without the harness's recorder (its handlers would be measured too).
 */
import type { ExtensionAPI, ExtensionFactory, ToolDefinition } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	type ScriptedSession,
	type ScriptedSessionOptions,
} from "@pi-lifecycle/lifecycle-kit/testing";
import piGoal from "@pi-lifecycle/pi-goal";
import { createJscpdExtension, type JscpdOptions } from "@pi-lifecycle/pi-jscpd";
import piReset from "@pi-lifecycle/pi-reset";
import { Type } from "typebox";
import { nowMs } from "./stats.ts";

/** The jscpd controller type (only what the bench reads). */
export type JscpdController = Parameters<NonNullable<JscpdOptions["onController"]>>[0];

/** A named extension factory. */
export interface NamedFactory {
	name: string;
	factory: ExtensionFactory;
}

/** Handler durations per extension and event, recorded only while `enabled`. */
export class HandlerClock {
	enabled = false;
	/** `extension:event` → durations in ms. */
	readonly samples = new Map<string, number[]>();

	record(key: string, ms: number): void {
		if (!this.enabled) return;
		let list = this.samples.get(key);
		if (!list) {
			list = [];
			this.samples.set(key, list);
		}
		list.push(ms);
	}

	/** Total ms over keys matching `filter`. */
	total(filter: (key: string) => boolean = () => true): number {
		let sum = 0;
		for (const [key, list] of this.samples) if (filter(key)) for (const v of list) sum += v;
		return sum;
	}

	/** Per key: count and total ms. */
	summary(): Record<string, { n: number; totalMs: number }> {
		const out: Record<string, { n: number; totalMs: number }> = {};
		for (const [key, list] of this.samples) {
			out[key] = { n: list.length, totalMs: Math.round(list.reduce((a, b) => a + b, 0) * 1000) / 1000 };
		}
		return out;
	}

	reset(): void {
		this.samples.clear();
	}
}

type Handler = (event: unknown, ctx: unknown) => unknown;

/** Wraps `pi.on` so every handler the factory registers (now or later) is timed into `clock`. */
export function timed(named: NamedFactory, clock: HandlerClock): NamedFactory {
	return {
		name: named.name,
		factory: (pi: ExtensionAPI) => {
			const proxy = new Proxy(pi, {
				get(target, prop) {
					if (prop === "on") {
						return (event: string, handler: Handler) =>
							(target.on as unknown as (e: string, h: Handler) => () => void)(event, (e, ctx) => {
								const key = `${named.name}:${event}`;
								const start = nowMs();
								let result: unknown;
								try {
									result = handler(e, ctx);
								} catch (error) {
									clock.record(key, nowMs() - start);
									throw error;
								}
								if (result && typeof (result as Promise<unknown>).then === "function") {
									return (result as Promise<unknown>).finally(() => clock.record(key, nowMs() - start));
								}
								clock.record(key, nowMs() - start);
								return result;
							});
					}
					const value = Reflect.get(target, prop, target);
					return typeof value === "function" ? value.bind(target) : value;
				},
			});
			return named.factory(proxy);
		},
	};
}

/** The three extensions, with a hook receiving pi-jscpd's controller. */
export function allExtensions(onJscpd?: (controller: JscpdController) => void): NamedFactory[] {
	return [
		{ name: "pi-reset", factory: piReset },
		{ name: "pi-goal", factory: piGoal },
		{ name: "pi-jscpd", factory: createJscpdExtension({ onController: onJscpd }) },
	];
}

/**
 * A reference extension: five tools with a one-string-parameter schema and a short description,
 * no handlers. Pi's per-request work for any five tools, for the wall-time floor.
 */
export function minimalTools(): NamedFactory {
	return {
		name: "minimal-tools",
		factory: (pi: ExtensionAPI) => {
			for (let i = 1; i <= 5; i++)
				pi.registerTool({
					name: `stub_tool_${i}`,
					label: `stub ${i}`,
					description: "Does nothing.",
					parameters: Type.Object({ note: Type.String() }),
					execute: async () => ({ content: [{ type: "text", text: "ok" }], details: undefined }),
				});
		},
	};
}

/** The tools all three extensions register that pi-reset alone does not. */
const EXTRA_TOOLS = ["goal_complete", "goal_blocked", "goal_wait", "jscpd_run"] as const;

/**
 * A stand-in `pi` whose every member is a no-op returning itself, except `registerTool`, an empty
 * `getAllTools`, and `on("session_start")`, whose handlers `startSession` runs: pi-goal registers its
 * tools at the first session start, once no other extension holds them.
 */
function capturingPi(capture: (tool: ToolDefinition) => void): {
	pi: ExtensionAPI;
	startSession: () => void;
} {
	const inert: object = new Proxy(() => inert, {
		get: (_target, prop) => (prop === "then" ? undefined : inert),
		apply: () => inert,
	});
	const starts: ((event: unknown, ctx: unknown) => unknown)[] = [];
	const on = (event: string, handler: (event: unknown, ctx: unknown) => unknown) => {
		if (event === "session_start") starts.push(handler);
		return () => undefined;
	};
	const members: Record<string | symbol, unknown> = {
		registerTool: capture,
		getAllTools: () => [],
		getCommands: () => [],
		on,
	};
	const pi = new Proxy({} as ExtensionAPI, {
		get: (_target, prop) => (prop in members ? members[prop] : prop === "then" ? undefined : inert),
	});
	const startSession = () => {
		for (const handler of starts) {
			try {
				handler({ type: "session_start", reason: "startup" }, inert);
			} catch {
				// The stand-in context cannot serve the rest of a real start; the tools are registered first.
			}
		}
	};
	return { pi, startSession };
}

/**
 * A reference extension for the per-request floor of our extra tools: goal_complete, goal_blocked,
 * goal_wait and jscpd_run exactly as pi-goal and pi-jscpd declare them (name, label, description,
 * parameter schema, annotations — read from their real factories run against a stand-in `pi`), with
 * an inert `execute`, no renderers and no handlers. `pi-reset` + this = what Pi pays per request for
 * the four declarations alone.
 */
export function inertTools(): NamedFactory {
	const tools: ToolDefinition[] = [];
	const stand = capturingPi((tool) => {
		if ((EXTRA_TOOLS as readonly string[]).includes(tool.name)) tools.push(tool);
	});
	piGoal(stand.pi);
	createJscpdExtension()(stand.pi);
	stand.startSession();
	if (tools.length !== EXTRA_TOOLS.length)
		throw new Error(
			`inert-tools: captured ${tools.map((t) => t.name).join(", ")}, expected ${EXTRA_TOOLS.join(", ")}`,
		);
	return {
		name: "inert-tools",
		factory: (pi: ExtensionAPI) => {
			for (const { name, label, description, parameters, annotations } of tools)
				pi.registerTool({
					name,
					label,
					description,
					parameters,
					...(annotations ? { annotations } : {}),
					execute: async () => ({ content: [{ type: "text", text: "ok" }], details: undefined }),
				});
		},
	};
}

/** A scripted session without the recorder (extensions as given). */
export function session(
	extensions: readonly NamedFactory[],
	options: Omit<ScriptedSessionOptions, "extensions" | "recorder"> = {},
): Promise<ScriptedSession> {
	return createScriptedSession({ ...options, extensions, recorder: false });
}
