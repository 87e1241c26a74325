/**
 * `@pi-lifecycle/pi-jscpd`: duplicate-code checks for Pi with jscpd — `/jscpd`, the `jscpd_run`
 * tool, a session baseline and a quiet advisory checkpoint after the agent settles.
 */
import { type ExtensionAPI, getAgentDir, VERSION } from "@earendil-works/pi-coding-agent";
import {
	createDialogScope,
	createWorkflowMutex,
	guardHost,
	IdleDispatcher,
	trackLifecycle,
} from "@pi-lifecycle/lifecycle-kit";
import { JscpdController, type JscpdOptions } from "./adapters/controller.js";
import { registerCommand, registerLifecycle, registerRenderer, registerTool } from "./adapters/register.js";

export type { JscpdOptions } from "./adapters/controller.js";

/** Builds the extension factory (options are for tests and embedders). */
export function createJscpdExtension(options: JscpdOptions = {}): (pi: ExtensionAPI) => void {
	return (pi) => {
		if (!guardHost(pi, "pi-jscpd", VERSION).supported) return;
		const identity = trackLifecycle(pi);
		const controller = new JscpdController(pi, identity, { agentDir: getAgentDir, ...options });
		options.onController?.(controller);
		registerLifecycle(pi, controller);
		registerTool(pi, controller);
		// pi-jscpd never holds workflow:mutex:v1; it only asks whether another workflow does.
		const mutex = createWorkflowMutex(pi);
		registerCommand(pi, controller, createDialogScope(pi, identity), {
			pi,
			dispatcher: new IdleDispatcher(),
			guard: () => identity.guard(),
			workflowBusy: () => !mutex.held && mutex.isBusy(),
		});
		registerRenderer(pi);
	};
}

/** The Pi extension factory. */
export default createJscpdExtension();
