/**
 * The window meter: a running estimate of the tokens in the current window, kept from events Pi
 * does not pay for per handler (`message_end`, `turn_start`), so that the `context` hook (which Pi
 * pays for on every provider request) is subscribed only when the window is close to the
 * checkpoint warning. The warning itself is still decided by the exact computation in the hook.
 *
 * Only Pi's types are imported; token counts arrive as numbers.
 */
import type { Usage } from "@earendil-works/pi-ai";

/**
 * Tokens below the warning point at which the `context` hook is armed. Every message the model
 * will see is counted at its `message_end` (a tool result of any size included), and boundary
 * drafts at the next `turn_start`, both before the next request's `context` hook. This margin
 * covers only what the meter cannot observe: messages other extensions add in their own `context`
 * hooks (pi-goal's contract fallback is under 300 tokens) and a usage rewritten at `message_end`
 * by an extension that replaced the message object. 8192 tokens is 6% of a 128k window.
 */
export const ARMING_SAFETY_TOKENS = 8192;

/** An assistant message whose usage measured its request (read lazily: Pi may patch it in place). */
export interface Anchor {
	/** The usage Pi reports (possibly rewritten by a later `message_end` handler, in place). */
	readonly usage: Usage;
}

/** What the meter needs to measure a usage (Pi's `calculateContextTokens`). */
export type UsageTokens = (usage: Usage) => number;

/** The running estimate of one window. */
export interface WindowMeter {
	/** The window epoch (window and lifecycle generation, see `ResetControl.windowEpoch`) measured. */
	readonly key: number;
	/** Forgets everything: a new window or session starts unmeasured. */
	reset(key: number): void;
	/**
	 * An assistant answer: its usage measures the window up to and including it. Its own estimate
	 * is needed only when the usage reads 0, so it may be passed lazily.
	 */
	answered(anchor: Anchor, ownEstimate: number | (() => number)): void;
	/** Any other message the next request will carry. */
	added(tokens: number): void;
	/** The estimate, or undefined while the window has not been measured yet. */
	tokens(): number | undefined;
	/** The leaf the last boundary-draft sync stopped at. */
	syncedLeaf: string | null;
}

/** Creates an unmeasured meter. */
export function createWindowMeter(usageTokens: UsageTokens): WindowMeter {
	let key = -1;
	let anchor: Anchor | undefined;
	// Tokens before the anchor, used only when its usage reads 0 (then it is estimated like the rest).
	let beforeAnchor: number | undefined;
	let anchorEstimate: number | (() => number) = 0;
	let trailing = 0;
	let known = false;
	return {
		get key() {
			return key;
		},
		syncedLeaf: null,
		reset(next) {
			key = next;
			anchor = undefined;
			beforeAnchor = undefined;
			anchorEstimate = 0;
			trailing = 0;
			known = false;
			this.syncedLeaf = null;
		},
		answered(next, ownEstimate) {
			beforeAnchor = this.tokens();
			anchor = next;
			anchorEstimate = ownEstimate;
			trailing = 0;
			known = true;
		},
		added(tokens) {
			trailing += tokens;
		},
		tokens() {
			if (!known) return undefined;
			const measured = anchor ? usageTokens(anchor.usage) : 0;
			if (measured > 0) return measured + trailing;
			if (beforeAnchor === undefined) return undefined;
			if (typeof anchorEstimate === "function") anchorEstimate = anchorEstimate();
			return beforeAnchor + anchorEstimate + trailing;
		},
	};
}

/**
 * The warning margin for a window: the seed's rule (`configured`, 12288 by default, tokens before
 * Pi's compaction threshold) for large windows, at most a quarter of the usable window (the context
 * window minus Pi's reserve) for small ones, so a fresh window keeps three quarters of its usable
 * room for work before it is told to checkpoint: `min(configured, floor((window - reserve) / 4))`.
 * The two agree from a usable window of 4 × 12288 = 49152 tokens (a 64k window with the default
 * reserve). `undefined` (no warning) when the window is unknown or Pi's reserve leaves no usable
 * room: Pi then compacts at every turn and a warning could only add turns.
 */
export function warningMargin(
	contextWindow: number,
	reserve: number,
	configured: number,
): number | undefined {
	const usable = contextWindow - reserve;
	if (contextWindow <= 0 || usable <= 0) return undefined;
	return Math.min(configured, Math.floor(usable / 4));
}

/** Inputs of {@link warningHookWanted}. */
export interface ArmingInputs {
	/** The meter's estimate; undefined when the window is unmeasured. */
	readonly tokens: number | undefined;
	/** The model's context window (0 or less: unknown, no warning). */
	readonly contextWindow: number;
	/** Tokens left at which the warning fires (reserve + margin). */
	readonly threshold: number;
}

/**
 * The estimate at or above which the warning check must run ({@link warningHookWanted} as one
 * number, computed once per run): `undefined` when the model's window is unknown (never).
 */
export function armingPoint(contextWindow: number, threshold: number): number | undefined {
	return contextWindow > 0 ? contextWindow - threshold - ARMING_SAFETY_TOKENS : undefined;
}

/** {@link warningHookWanted} against a precomputed {@link armingPoint}. */
export function nearArming(tokens: number | undefined, point: number | undefined): boolean {
	return point !== undefined && (tokens === undefined || tokens >= point);
}

/**
 * Whether the warning check must run on the next request: the window is unmeasured (a new
 * session or window: the exact check runs until the first answer measures it), or the estimate is
 * within {@link ARMING_SAFETY_TOKENS} of the warning point.
 */
export function warningHookWanted(inputs: ArmingInputs): boolean {
	if (inputs.contextWindow <= 0) return false;
	if (inputs.tokens === undefined) return true;
	return inputs.contextWindow - inputs.tokens <= inputs.threshold + ARMING_SAFETY_TOKENS;
}
