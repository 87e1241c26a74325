/**
 * pi-reset: explicit context resets for Pi. `new_context` and `/reset` end a context window on
 * purpose, every compaction Pi starts becomes an instant reset with no model turn, old tool output
 * is masked in what is sent (in steps, so the cached prefix holds) and `context_recall` gets it back.
 *
 * This file only composes; see README.md for the module map.
 */
import { type ExtensionAPI, type ExtensionContext, VERSION } from "@earendil-works/pi-coding-agent";
import { guardHost, trackLifecycle } from "@pi-lifecycle/lifecycle-kit";
import { createResetBoundary } from "./adapters/boundary.js";
import { createWorkReader } from "./adapters/carry.js";
import { registerResetCommand } from "./adapters/command.js";
import { registerCompactionHooks } from "./adapters/compaction.js";
import { registerContextHook } from "./adapters/context.js";
import { createControl } from "./adapters/control.js";
import { registerLifecycle } from "./adapters/lifecycle.js";
import { createRequestMasker } from "./adapters/masking.js";
import { createReserveReader } from "./adapters/pi-compaction-settings.js";
import { createPiCompacts } from "./adapters/pi-compacts-window.js";
import { RECALL_TOOL_NAME, registerRecallTool } from "./adapters/recall.js";
import { registerResetRenderers } from "./adapters/renderers.js";
import { maskingSettings } from "./adapters/settings.js";
import { createThresholdWatch } from "./adapters/threshold-reset.js";
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
	// Masked output is offered back through context_recall: without it (a tool allowlist, another
	// extension narrowed the tools) nothing is masked and no text offers recall.
	const recallActive = () => pi.getActiveTools().includes(RECALL_TOOL_NAME);
	const reserveTokens = (ctx: ExtensionContext) => reserve.get(ctx);
	control.attachBoundary(
		createResetBoundary(pi, control, { work, recallActive, reserveTokens, piCompacts: createPiCompacts(pi) }),
	);
	registerNewContextTool(pi, control);
	registerRecallTool(pi);
	control.attachSwitch(createToolVisibility(pi, [TOOL_NAME, RECALL_TOOL_NAME]));
	const masking = () => ({ ...maskingSettings(settings.current()), recallAvailable: recallActive() });
	registerResetCommand(pi, control, identity, { reserve, marginTokens, masking });
	registerCompactionHooks(pi, control, {
		maxRequestChars,
		reserveTokens,
		recallActive,
	});
	const toolActive = () => pi.getActiveTools().includes(TOOL_NAME);
	const masker = createRequestMasker(() => {
		const current = masking();
		return current.recallAvailable ? current : { ...current, enabled: false };
	});
	registerContextHook(pi, control, {
		reserveTokens,
		marginTokens,
		toolActive,
		recallActive,
		masker,
		// An answer over Pi's threshold is reset at its turn_end, before Pi's compaction asks anyone.
		measured: createThresholdWatch(control, {
			reserveTokens,
			autoCompaction: () => reserve.autoCompaction(),
		}),
	});
	registerResetRenderers(pi);
}
