/**
 * Counts what a scripted session does to the host while switched on: session-manager calls whose
 * name matches `sessionManagerMethods`, footer/widget/notify calls, timers and clones, and session
 * events. Shared by the profilers (drive.ts `count`, goal-count.ts); bench-only instrumentation.
 */
import type { ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";

type Calls = Record<string, (...a: unknown[]) => unknown>;

export interface HostCalls {
	/** Counting on or off (off while the session starts and after the measured turns). */
	on: boolean;
	readonly effects: Map<string, number>;
	readonly events: Map<string, number>;
}

/** Wraps the session's host objects once; counts only while `on`. */
export function watchHostCalls(h: ScriptedSession, sessionManagerMethods: RegExp): HostCalls {
	const calls: HostCalls = { on: false, effects: new Map(), events: new Map() };
	const bump = (k: string) => calls.effects.set(k, (calls.effects.get(k) ?? 0) + 1);
	const sm = h.session.sessionManager as unknown as Calls;
	for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(sm))) {
		if (!sessionManagerMethods.test(name)) continue;
		const original = sm[name] as (...a: unknown[]) => unknown;
		sm[name] = function (this: unknown, ...args: unknown[]) {
			if (calls.on)
				bump(`sessionManager.${name}${name === "appendCustomEntry" ? `(${String(args[0])})` : ""}`);
			return original.apply(this, args);
		};
	}
	const ui = (h.session.extensionRunner as unknown as { uiContext: Calls }).uiContext;
	for (const name of ["setStatus", "setWidget", "notify", "setFooter"]) {
		const original = ui[name];
		if (typeof original !== "function") continue;
		ui[name] = (...args: unknown[]) => {
			if (calls.on) bump(`ui.${name}(${String(args[0])})`);
			return original(...args);
		};
	}
	const g = globalThis as unknown as Calls;
	for (const name of ["setTimeout", "setImmediate", "setInterval", "structuredClone", "queueMicrotask"]) {
		const original = g[name] as (...a: unknown[]) => unknown;
		g[name] = (...args: unknown[]) => {
			if (calls.on) bump(`global.${name}`);
			return original(...args);
		};
	}
	h.session.subscribe((event: { type: string }) => {
		if (calls.on) calls.events.set(event.type, (calls.events.get(event.type) ?? 0) + 1);
	});
	return calls;
}
