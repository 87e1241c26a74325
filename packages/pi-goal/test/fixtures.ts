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
export function holderExtension(control: { mutex?: WorkflowMutex; holdAtStart?: boolean } = {}): {
	name: string;
	factory: ExtensionFactory;
} {
	return {
		name: "other-workflow",
		factory: (pi: ExtensionAPI) => {
			const mutex = createWorkflowMutex(pi);
			control.mutex = mutex;
			pi.on("session_start", () => {
				if (control.holdAtStart) mutex.tryAcquire();
			});
		},
	};
}
