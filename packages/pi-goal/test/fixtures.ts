/** Small inline test extensions. */
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { createWorkflowMutex, type WorkflowMutex } from "@pi-lifecycle/lifecycle-kit";
import type { Deferred } from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";

/** Registers `noop` and a `slow` tool that waits for the current gate. */
export function toolsExtension(gates: { current?: Deferred<void> } = {}): {
	name: string;
	factory: ExtensionFactory;
} {
	return {
		name: "test-tools",
		factory: (pi: ExtensionAPI) => {
			pi.registerTool({
				name: "noop",
				label: "noop",
				description: "does nothing",
				parameters: Type.Object({}),
				async execute() {
					return { content: [{ type: "text", text: "ok" }], details: {} };
				},
			});
			pi.registerTool({
				name: "slow",
				label: "slow",
				description: "waits",
				parameters: Type.Object({}),
				async execute(_id, _params, signal) {
					const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
					await Promise.race([gates.current?.promise, aborted]);
					return { content: [{ type: "text", text: "slow done" }], details: {} };
				},
			});
		},
	};
}

/** A second workflow participant that can hold agent-workflow. */
export function holderExtension(
	control: { mutex?: WorkflowMutex; holdAtStart?: boolean; token?: symbol } = {},
): {
	name: string;
	factory: ExtensionFactory;
} {
	return {
		name: "other-workflow",
		factory: (pi: ExtensionAPI) => {
			const mutex = createWorkflowMutex(pi);
			control.mutex = mutex;
			pi.on("session_start", () => {
				const result = control.holdAtStart ? mutex.tryAcquire() : undefined;
				if (result?.acquired) control.token = result.token;
			});
		},
	};
}

/**
 * Supplies compactions without a model call (retain-all summary), so compaction recovery can be
 * driven deterministically; `cancel` makes it cancel instead (session_compact_failed aborted).
 */
export function compactorExtension(control: { cancel?: boolean; fail?: boolean } = {}): {
	name: string;
	factory: ExtensionFactory;
} {
	return {
		name: "compactor",
		factory: (pi: ExtensionAPI) => {
			pi.on("session_before_compact", (event) => {
				if (control.cancel) return { cancel: true };
				if (control.fail) return undefined; // Pi's default summary: consumes a scripted response
				return {
					compaction: {
						summary: "SUMMARY",
						firstKeptEntryId: event.preparation.firstKeptEntryId,
						tokensBefore: event.preparation.tokensBefore,
					},
				};
			});
		},
	};
}

/** A scripted `usage:query:v1` responder: `respond` returns what to offer (or nothing). */
export function usageResponder(respond: (request: Record<string, unknown>) => unknown): {
	name: string;
	factory: ExtensionFactory;
	requests: Record<string, unknown>[];
} {
	const requests: Record<string, unknown>[] = [];
	return {
		name: "usage-service",
		requests,
		factory: (pi: ExtensionAPI) => {
			pi.events.on("usage:query:v1", (payload: unknown) => {
				const request = payload as Record<string, unknown> & { offer(response: unknown): void };
				requests.push(request);
				const response = respond(request);
				if (response !== undefined) request.offer(response);
			});
		},
	};
}

/** An extension that narrows the active tools (a restrictive allowlist) when `control.hide` is set. */
export function allowlistExtension(control: { hide?: string[] } = {}): {
	name: string;
	factory: ExtensionFactory;
} {
	return {
		name: "allowlist",
		factory: (pi: ExtensionAPI) => {
			pi.on("agent_end", () => {
				if (control.hide)
					pi.setActiveTools(pi.getActiveTools().filter((name) => !control.hide?.includes(name)));
			});
		},
	};
}
