/**
 * Lifecycle adapter: restores the window and the on/off switch from the branch at session start
 * and after tree navigation, invalidates outstanding work on shutdown, starts a fresh-window run
 * after an idle `/reset`, and confirms boundaries at settle.
 */
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import {
	createOnceReporter,
	isExplicitlyTrusted,
	type LifecycleIdentity,
	loadSettings,
} from "@pi-lifecycle/lifecycle-kit";
import { NOTHING_CARRIED } from "../core/reducer.js";
import { othersAnsweredIn, restoreFromBranch, STATE_ENTRY, sessionSwitch } from "../core/window.js";
import { confirmProposal } from "./boundary.js";
import type { WorkReader } from "./carry.js";
import { notify, type ResetControl, sessionWriteError } from "./control.js";
import type { ReserveReader } from "./pi-compaction-settings.js";
import { DEFAULT_SETTINGS, type ResetSettings, SETTINGS_SPEC } from "./settings.js";

/** Settings of the current session (read at session_start). */
export interface SettingsHolder {
	/** The effective settings. */
	current(): ResetSettings;
}

function loadFor(ctx: ExtensionContext): ResetSettings {
	try {
		const loaded = loadSettings(SETTINGS_SPEC, {
			agentDir: getAgentDir(),
			cwd: ctx.cwd,
			projectTrusted: isExplicitlyTrusted(ctx),
		});
		for (const warning of loaded.warnings) notify(ctx, warning, "warning");
		return loaded.value;
	} catch {
		return DEFAULT_SETTINGS;
	}
}

/** Reports malformed saved state (once per runtime: the caller keeps the flag). */
export type MalformedReporter = (ctx: ExtensionContext, count: number) => void;

/** The warning shown when saved pi-reset state was ignored. */
export function malformedText(count: number): string {
	return `pi-reset: ignored ${count} malformed pi-reset ${count === 1 ? "entry" : "entries"} in this session; using the defaults (the window and the on/off switch fall back to what the rest of the session says).`;
}

/** A reporter that warns at most once per extension runtime (the kit's `createOnceReporter`). */
export function reportOnce(): MalformedReporter {
	const once = createOnceReporter("pi-reset");
	return (ctx, count) => {
		if (count > 0) once(ctx, malformedText(count));
	};
}

/**
 * Re-reads the window from the current branch (session start, tree, toggle on). The on/off switch
 * is the caller's: it holds for the session, never per branch ({@link sessionSwitch}).
 */
export function restore(
	control: ResetControl,
	identity: LifecycleIdentity,
	ctx: ExtensionContext,
	enabled: boolean,
	report?: MalformedReporter,
	othersAnswered = false,
): void {
	const restored = restoreFromBranch(ctx.sessionManager.getBranch());
	report?.(ctx, restored.malformed);
	control.dispatch(
		{
			type: "restore",
			enabled,
			window: restored.window,
			handoff: restored.handoff,
			generation: identity.snapshot.generation,
			othersAnswered,
		},
		ctx,
	);
}

/** Persists the per-session switch; a failed write (a read-only or full session folder) is said, not thrown. */
export function persistEnabled(
	pi: Pick<ExtensionAPI, "appendEntry">,
	enabled: boolean,
	ctx?: ExtensionContext,
): void {
	try {
		pi.appendEntry(STATE_ENTRY, { enabled });
	} catch (error) {
		const why = sessionWriteError(error, ctx);
		notify(
			ctx,
			`pi-reset: could not save the switch in the session (${why}); it holds until pi exits.`,
			"warning",
		);
	}
}

/** Registers the lifecycle handlers. Call after `trackLifecycle` so identity moves first. */
export function registerLifecycle(
	pi: Pick<ExtensionAPI, "on">,
	control: ResetControl,
	identity: LifecycleIdentity,
	reserve: ReserveReader,
	work: WorkReader,
): SettingsHolder {
	let settings: ResetSettings = DEFAULT_SETTINGS;
	const report = reportOnce();
	pi.on("session_start", (_event, ctx) => {
		settings = loadFor(ctx);
		reserve.refresh(ctx);
		const entries = ctx.sessionManager.getEntries();
		const saved = sessionSwitch(entries);
		restore(control, identity, ctx, saved ?? settings.enabled, report, othersAnsweredIn(entries));
	});
	pi.on("session_tree", (_event, ctx) => {
		// Tree navigation moves the window, never the session's switch.
		restore(control, identity, ctx, control.state.enabled, report);
	});
	pi.on("session_shutdown", (_event, ctx) => {
		control.dispatch({ type: "invalidate", generation: identity.snapshot.generation }, ctx);
	});
	pi.on("before_agent_start", (_event, ctx) => {
		reserve.refresh(ctx);
		const request = control.state.request;
		if (request?.mode !== "next-run") return;
		// The run's message is not in the session yet: the leaf still ends the window before it.
		const carried = request.fresh ? NOTHING_CARRIED : work.read(ctx.sessionManager);
		control.dispatch(
			{
				type: "run-start",
				baseLeafId: ctx.sessionManager.getLeafId(),
				newWindowId: control.mintWindowId(),
				carried,
			},
			ctx,
		);
	});
	// Boundaries are confirmed at `turn_start` by context.ts (pi-reset's one turn_start handler).
	pi.on("agent_settled", (event, ctx) => {
		confirmProposal(control, ctx);
		control.dispatch({ type: "settled", aborted: event.aborted }, ctx);
	});
	return { current: () => settings };
}
