/**
 * Variant specs for the profile drivers: which extensions load, and which of their handlers are
 * stubbed (registered, body replaced by a no-op: Pi's dispatch cost stays, ours goes) or dropped
 * (never registered: both go). Also a counting proxy for `pi.on` and per-turn counters of
 * session writes, footer updates, timers and structuredClone calls.
 *
 * Spec grammar: `none` | `all` | `pi-reset+pi-goal` …, optionally followed by
 * `/stub:<ext>:<event>[,<ext>:<event>…]` and/or `/drop:<ext>:<event>…`; `*` matches any event or
 * extension. Example: `all/stub:pi-reset:*` or `all/drop:pi-jscpd:tool_call,pi-jscpd:tool_result`.
 * `minimal-tools` loads a reference extension with five minimal tools (lib/extensions.ts); `pi-reset+inert-tools`
 * pi-reset plus our four other tools declared exactly as ours, inert (the per-request floor). `/tools:none` ignores the extensions' `registerTool` calls (`/tools:none:pi-goal` one extension's); `all/drop:*:*` keeps only their tools
 * (and commands, renderers), `all/tools:none` only their handlers.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	allExtensions,
	inertTools,
	type JscpdController,
	minimalTools,
	type NamedFactory,
} from "../lib/extensions.ts";

/** A parsed variant. */
export interface Variant {
	/** The spec as given. */
	spec: string;
	/** Extension names loaded. */
	names: string[];
	/** `ext:event` patterns whose handler body is replaced by a no-op. */
	stub: string[];
	/** `ext:event` patterns never registered. */
	drop: string[];
	/** `/tools:none[:<ext>]`: `registerTool` calls of all (or one) extension are ignored (handlers stay). */
	noTools: string[];
}

/** Parses a spec (see the module comment). */
export function parseVariant(spec: string): Variant {
	const [head = "none", ...mods] = spec.split("/");
	const names = head === "none" ? [] : head === "all" ? ["pi-reset", "pi-goal", "pi-jscpd"] : head.split("+");
	const stub: string[] = [];
	const drop: string[] = [];
	const noTools: string[] = [];
	for (const mod of mods) {
		if (mod.startsWith("tools:none")) {
			noTools.push(mod.split(":")[2] ?? "*");
			continue;
		}
		const [kind, list = ""] = [mod.slice(0, mod.indexOf(":")), mod.slice(mod.indexOf(":") + 1)];
		const target = kind === "stub" ? stub : kind === "drop" ? drop : undefined;
		if (!target) throw new Error(`unknown modifier ${mod}`);
		target.push(...list.split(",").filter(Boolean));
	}
	return { spec, names, stub, drop, noTools };
}

function matches(patterns: readonly string[], ext: string, event: string): boolean {
	return patterns.some((p) => {
		const [e = "", ev = ""] = p.split(":");
		return (e === "*" || e === ext) && (ev === "*" || ev === event);
	});
}

/** Handler calls per `ext:event`, and the sync time spent in them (ms). */
export class HandlerCounter {
	enabled = false;
	readonly calls = new Map<string, number>();
	readonly syncMs = new Map<string, number>();
	/** Registrations per `ext:event` (armed subscriptions register more than once). */
	readonly registrations = new Map<string, number>();

	add(key: string, ms: number): void {
		if (!this.enabled) return;
		this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
		this.syncMs.set(key, (this.syncMs.get(key) ?? 0) + ms);
	}
}

type Handler = (event: unknown, ctx: unknown) => unknown;

/** The variant's factories, with stubs, drops and (optionally) counting applied. */
export function variantFactories(
	variant: Variant,
	counter?: HandlerCounter,
	onJscpd?: (controller: JscpdController) => void,
): NamedFactory[] {
	return [
		...allExtensions(onJscpd),
		minimalTools(),
		...(variant.names.includes("inert-tools") ? [inertTools()] : []),
	]
		.filter((e) => variant.names.includes(e.name))
		.map((named) => ({
			name: named.name,
			factory: (pi: ExtensionAPI) => {
				const on = (event: string, handler: Handler) => {
					const key = `${named.name}:${event}`;
					if (counter) counter.registrations.set(key, (counter.registrations.get(key) ?? 0) + 1);
					if (matches(variant.drop, named.name, event)) return () => {};
					const body: Handler = matches(variant.stub, named.name, event) ? () => undefined : handler;
					const wrapped: Handler = counter
						? (e, ctx) => {
								const start = performance.now();
								try {
									return body(e, ctx);
								} finally {
									counter.add(key, performance.now() - start);
								}
							}
						: body;
					return (pi.on as unknown as (e: string, h: Handler) => () => void)(event, wrapped);
				};
				const proxy = new Proxy(pi, {
					get(target, prop) {
						if (prop === "on") return on;
						if (prop === "registerTool" && variant.noTools.some((e) => e === "*" || e === named.name))
							return () => {};
						const value = Reflect.get(target, prop, target);
						return typeof value === "function" ? value.bind(target) : value;
					},
				});
				return named.factory(proxy);
			},
		}));
}
