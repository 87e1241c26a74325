/**
 * pi-reset: explicit context resets for Pi. `new_context` and `/reset` end a context window on
 * purpose, every compaction Pi starts becomes an instant reset with no model turn, old tool output
 * is masked in what is sent (in steps, so the cached prefix holds) and `context_recall` gets it back.
 *
 * This file only composes; see README.md for the module map.
 */
import { type ExtensionAPI, VERSION } from "@earendil-works/pi-coding-agent";
import { guardHost, trackLifecycle } from "@pi-lifecycle/lifecycle-kit";
import { createResetBoundary } from "./adapters/boundary.js";
import { createWorkReader } from "./adapters/carry.js";
import { registerResetCommand } from "./adapters/command.js";
import { registerCompactionHooks } from "./adapters/compaction.js";
import { registerContextHook } from "./adapters/context.js";
import { createControl } from "./adapters/control.js";
import { registerLifecycle } from "./adapters/lifecycle.js";
import { createRequestMasker } from "./adapters/masking.js";
import { RECALL_TOOL_NAME, registerRecallTool } from "./adapters/recall.js";
import { registerResetRenderers } from "./adapters/renderers.js";
import { createReserveReader, maskingSettings } from "./adapters/settings.js";
import { createToolVisibility, registerNewContextTool, TOOL_NAME } from "./adapters/tool.js";

/** The pi-reset extension factory. */
export default function piReset(pi: ExtensionAPI): void {
	if (!guardHost(pi, "pi-reset", VERSION).supported) return;
	// Identity first: every later handler sees the generation already moved.
	const identity = trackLifecycle(pi);
	const control = createControl(pi);
	const reserve = createReserveReader(pi);
	// Settings are read at session_start; the reader asks for the limit only at a reset.
	const work = createWorkReader(() => settings.current().maxRequestChars);
	const settings = registerLifecycle(pi, control, identity, reserve, work);
	const maxRequestChars = () => settings.current().maxRequestChars;
	const marginTokens = () => settings.current().warningMarginTokens;
	control.attachBoundary(createResetBoundary(pi, control, { work }));
	registerNewContextTool(pi, control);
	registerRecallTool(pi);
	control.attachSwitch(createToolVisibility(pi, [TOOL_NAME, RECALL_TOOL_NAME]));
	const masking = () => maskingSettings(settings.current());
	registerResetCommand(pi, control, identity, { reserve, marginTokens, masking });
	registerCompactionHooks(pi, control, { maxRequestChars, reserveTokens: (ctx) => reserve.get(ctx) });
	const toolActive = () => pi.getActiveTools().includes(TOOL_NAME);
	const masker = createRequestMasker(masking);
	registerContextHook(pi, control, {
		reserveTokens: (ctx) => reserve.get(ctx),
		marginTokens,
		toolActive,
		masker,
	});
	registerResetRenderers(pi);
}
