/**
 * The one place the reset state lives. Adapters dispatch events; the reducer decides; this module
 * applies the effects every adapter shares (footer, notices, boundary arming, the bus
 * announcement) and hands the effect back for the adapter-specific part.
 */
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import {
	type BoundaryParticipant,
	createFooterStatus,
	describeWriteError,
	type NoticeLevel,
	piFaultPlaces,
	RESET_CHANNEL,
	type ResetAnnouncement,
	tellUser,
} from "@pi-lifecycle/lifecycle-kit";
import {
	initialState,
	type ResetEffect,
	type ResetEvent,
	type ResetState,
	reduceReset,
} from "../core/reducer.js";
import { cancelledText, commitMissingText, footerText } from "../core/texts.js";
import { HANDOFF_ENTRY } from "../core/window.js";

/** Footer status key (DESIGN.md §3). */
export const STATUS_KEY = "pi-reset";

/** Handle adapters use. */
export interface ResetControl {
	/** The current state (immutable snapshot). */
	readonly state: ResetState;
	/** Runs one event through the reducer and applies the shared effects. */
	dispatch(event: ResetEvent, ctx?: ExtensionContext): ResetEffect;
	/**
	 * A number that moves whenever the window id or the lifecycle generation moves (a cheap key for
	 * per-window running totals on hot events).
	 */
	readonly windowEpoch: number;
	/** A fresh id for the window the next reset opens. */
	mintWindowId(): string;
	/** Attaches the boundary participant (created after the control because it proposes through it). */
	attachBoundary(boundary: BoundaryParticipant): void;
	/** Attaches what follows the on/off switch (the tool's visibility); called whenever it may have moved. */
	attachSwitch(follow: (enabled: boolean) => void): void;
}

/** Shows a notice under the kit's no-UI policy (`tellUser`: UI, else stdout for print-mode answers, else stderr). */
export function notify(ctx: ExtensionContext | undefined, text: string, level: NoticeLevel): void {
	tellUser(ctx, "pi-reset", text, level);
}

/**
 * Why Pi could not write this session's file, in plain words: a local fault names its folder and
 * the next step, also when the error names no path (a disk that fills during the write).
 */
export function sessionWriteError(error: unknown, ctx: ExtensionContext | undefined): string {
	let file: string | undefined;
	try {
		file = ctx?.sessionManager.getSessionFile();
	} catch {
		file = undefined; // a stale context
	}
	return describeWriteError(error, piFaultPlaces(ctx, getAgentDir()), file);
}

function randomSuffix(): string {
	return Math.random().toString(36).slice(2, 6).padEnd(4, "0");
}

/** Creates the control for one extension runtime. */
export function createControl(pi: Pick<ExtensionAPI, "events" | "appendEntry">): ResetControl {
	let state = initialState();
	let windowEpoch = 0;
	let boundary: BoundaryParticipant | undefined;
	let followSwitch: ((enabled: boolean) => void) | undefined;
	const footer = createFooterStatus(STATUS_KEY);

	const syncArming = () => {
		const wanted =
			state.request?.mode === "boundary" ||
			state.nextRun !== undefined ||
			state.warning !== undefined ||
			state.thresholdDue;
		if (wanted) boundary?.arm();
		else boundary?.disarm();
	};

	const shared = (effect: ResetEffect, ctx: ExtensionContext | undefined) => {
		switch (effect.type) {
			case "cancelled":
				notify(ctx, cancelledText(effect.why, effect.handoff !== undefined), "warning");
				break;
			case "requeued":
				notify(
					ctx,
					`pi-reset: the compaction did not happen, so your ${effect.request.source === "tool" ? "new_context" : "/reset"} request is still pending; the reset happens at the next boundary or with your next message.`,
					"warning",
				);
				break;
			case "commit-missing":
				notify(ctx, commitMissingText(effect), "warning");
				break;
			case "announce": {
				if (!ctx) break;
				const payload: ResetAnnouncement = {
					session: ctx.sessionManager,
					windowId: effect.committed.windowId,
					entryId: effect.committed.entryId,
				};
				try {
					pi.events.emit(RESET_CHANNEL, payload);
				} catch (error) {
					notify(ctx, `pi-reset: could not announce the reset (${(error as Error).message})`, "warning");
				}
				break;
			}
			default:
				break;
		}
	};

	return {
		get state() {
			return state;
		},
		get windowEpoch() {
			return windowEpoch;
		},
		dispatch(event, ctx) {
			const step = reduceReset(state, event);
			// A handoff is persisted when it is given, so no later abort, compaction or reload loses it.
			if (event.type === "request" && step.state.handoff && step.state.handoff !== state.handoff) {
				try {
					pi.appendEntry(HANDOFF_ENTRY, step.state.handoff);
				} catch (error) {
					notify(ctx, `pi-reset: could not save the handoff (${sessionWriteError(error, ctx)})`, "warning");
				}
			}
			if (step.state.generation !== state.generation || step.state.window.id !== state.window.id)
				windowEpoch++;
			const switched = step.state.enabled !== state.enabled || event.type === "restore";
			state = step.state;
			syncArming();
			if (switched) followSwitch?.(state.enabled);
			shared(step.effect, ctx);
			footer.set(
				ctx,
				footerText({
					enabled: state.enabled,
					windowId: state.window.id,
					resets: state.window.resets,
					pending: state.request !== undefined || state.nextRun !== undefined,
				}),
			);
			return step.effect;
		},
		mintWindowId() {
			return `w${state.window.resets + 1}-${randomSuffix()}`;
		},
		attachBoundary(participant) {
			boundary = participant;
			syncArming();
		},
		attachSwitch(follow) {
			followSwitch = follow;
		},
	};
}
