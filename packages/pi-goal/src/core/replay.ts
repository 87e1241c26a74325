/**
 * Accounting replay (pure). A `pi-goal/state` entry is written only when the goal changes
 * meaningfully, not per turn; what changes on every turn (tokens, active time, the safety counters,
 * the continuation count) is re-derived on restore from the entries after the newest state entry:
 * assistant usage is on the messages, the run's origin on the user and `pi-goal/continuation`
 * messages, the time on the entries' timestamps, the stuck detector's steps on the responses and
 * their tool results. O(entries after the state entry).
 */
import { messageCost, messageTokens, type UsageLike } from "./accounting.js";
import { readContinuationDetails } from "./contract.js";
import { effectiveStopReason, errorFacts } from "./errors.js";
import { countTurn } from "./safety.js";
import { observeStep } from "./stuck.js";
import { type CallFacts, callsOf, type ResultFacts, replyStep, resultText, toolStep } from "./stuck-facts.js";
import { CONTINUATION_MESSAGE, type GoalRecord, type GoalState } from "./types.js";

/** Counting only: a breaker reached in replay trips at the next live check, not here. */
const NO_TRIP = { automaticTurns: null, noProgressTurns: null } as const;
/** The stuck rules off: the replay only rebuilds the detector's recent steps. */
const RULES_OFF = { repeatedActions: null, repeatedErrors: null, cycleActions: null, noProgressTurns: null };

/** What a state entry says about the moment it was written, so later entries can be counted on. */
export interface StateAnchor {
	/** Running token total of the branch's assistant messages before the entry (runtime's origin). */
	readonly tokens: number;
	/** Whether the run under way when the entry was written was automatic goal work. */
	readonly automatic: boolean;
	/** Whether that run was goal-owned (kickoff and resume too); absent in older entries: `automatic`. */
	readonly goalWork?: boolean;
	/**
	 * A response with tool calls still held uncounted (boundary.ts TurnEndNeeds): its message is
	 * before the entry, so the replay counts it first, as the live flush would, if its goal is active.
	 */
	readonly held?: HeldResponse;
}

/** A held tool-call response as an anchor records it (text is irrelevant with tool calls). */
export interface HeldResponse {
	readonly goalId: string;
	readonly automatic: boolean;
	readonly goalWork: boolean;
}

function readHeld(value: unknown): HeldResponse | undefined {
	if (typeof value !== "object" || value === null) return undefined;
	const { goalId, automatic, goalWork } = value as Record<string, unknown>;
	if (typeof goalId !== "string" || typeof automatic !== "boolean" || typeof goalWork !== "boolean")
		return undefined;
	return { goalId, automatic, goalWork };
}

/** A branch entry as the replay reads it (a structural subset of Pi's SessionEntry). */
export interface ReplayEntry {
	readonly type: string;
	readonly customType?: string;
	readonly details?: unknown;
	readonly message?: {
		readonly role?: string;
		readonly usage?: UsageLike;
		readonly stopReason?: string;
		readonly errorMessage?: string;
		readonly content?: unknown;
		readonly toolCallId?: unknown;
		readonly isError?: unknown;
	};
}

/** Reads an anchor; anything malformed is undefined (the restore falls back to a full scan). */
export function readAnchor(value: unknown): StateAnchor | undefined {
	if (typeof value !== "object" || value === null) return undefined;
	const { tokens, automatic, goalWork, held } = value as Record<string, unknown>;
	if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens < 0) return undefined;
	if (typeof automatic !== "boolean") return undefined;
	const anchor = {
		tokens,
		automatic,
		goalWork: typeof goalWork === "boolean" ? goalWork || automatic : automatic,
	};
	const response = readHeld(held);
	return response ? { ...anchor, held: response } : anchor;
}

/** Tool calls and text of an assistant message (what the safety counters read). */
export function assistantTurn(content: unknown): { toolCalls: number; text: string } {
	if (!Array.isArray(content)) return { toolCalls: 0, text: typeof content === "string" ? content : "" };
	let toolCalls = 0;
	const texts: string[] = [];
	for (const block of content as { type?: unknown; text?: unknown }[]) {
		if (block?.type === "toolCall") toolCalls++;
		else if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
	}
	return { toolCalls, text: texts.join("\n") };
}

/** The result of {@link replayAfter}. */
export interface Replayed {
	readonly state: GoalState;
	readonly branchTotal: number;
}

/**
 * Replays `entries` (oldest first, all after the state entry) onto the persisted state: tokens
 * into the branch total, turns into the safety counters, accepted continuations into the
 * iteration, and `activeMs` (time the branch shows after the state entry) into an active,
 * non-waiting goal's clock. The same rules as the live handlers (hooks.ts, boundary.ts).
 */
export function replayAfter(
	state: GoalState,
	anchor: StateAnchor,
	entries: readonly ReplayEntry[],
	activeMs: number,
	heldEntries: readonly ReplayEntry[] = [],
): Replayed {
	let branchTotal = anchor.tokens;
	let goal: GoalRecord | null = state.goal;
	let automatic = anchor.automatic;
	// Goal-owned (kickoff and resume too): only such runs count for no-progress (safety.ts).
	let goalWork = anchor.goalWork ?? anchor.automatic;
	let recovery = false;
	let responses = 0;
	/** A counted response with tool calls, waiting for its results (the live count holds it too). */
	let pending: { calls: CallFacts[]; results: ResultFacts[] } | undefined;
	/** Its step joins the detector's recent steps, as the live flush does (boundary.ts). */
	const flush = () => {
		if (pending && goal?.status === "active") {
			const recent = observeStep(
				goal.safety.recent ?? [],
				toolStep(pending.calls, pending.results),
				RULES_OFF,
			);
			goal = { ...goal, safety: { ...goal.safety, recent: recent.recent } };
		}
		pending = undefined;
	};
	const addResult = (message: NonNullable<ReplayEntry["message"]>) => {
		const id = String(message.toolCallId ?? "");
		if (pending?.calls.some((call) => call.id === id))
			pending.results.push({ id, isError: message.isError === true, text: resultText(message.content) });
	};
	const held = anchor.held;
	if (held && goal?.status === "active" && goal.id === held.goalId) {
		goal = { ...goal, safety: countTurn(goal.safety, { ...held, toolCalls: 1, text: "" }, NO_TRIP).safety };
		// Its message and the results before the state entry (restoreBranch): its step is rebuilt too.
		const [response, ...rest] = heldEntries;
		if (response?.message?.role === "assistant") {
			pending = { calls: callsOf(response.message.content), results: [] };
			for (const entry of rest) if (entry.message?.role === "toolResult") addResult(entry.message);
		}
	}
	for (const entry of entries) {
		const message = entry.message;
		if (entry.type === "message" && message?.role === "assistant") {
			flush();
			branchTotal += messageTokens(message.usage);
			responses++;
			const cost = messageCost(message.usage);
			if (goal?.status === "active" && cost > 0) goal = { ...goal, costSpent: (goal.costSpent ?? 0) + cost };
			const stopReason = effectiveStopReason(message);
			if (goal?.status !== "active" || stopReason === "aborted") continue;
			const error = stopReason === "error";
			const facts = assistantTurn(message.content);
			const exempt =
				error &&
				recovery &&
				responses === 1 &&
				facts.toolCalls === 0 &&
				errorFacts(message as never)?.usageLimit === true;
			if (exempt) continue;
			// A provider error is no reply: the recent steps stay (as live).
			const step = facts.toolCalls > 0 || error ? undefined : replyStep(facts.text);
			const turn = { automatic, goalWork, error, ...facts, ...(step ? { step } : {}) };
			goal = { ...goal, safety: countTurn(goal.safety, turn, NO_TRIP).safety };
			if (facts.toolCalls > 0) pending = { calls: callsOf(message.content), results: [] };
		} else if (entry.type === "message" && message?.role === "toolResult") {
			addResult(message);
		} else if (entry.type === "message" && message?.role === "user") {
			flush();
			automatic = false;
			goalWork = false;
			recovery = false;
			responses = 0;
		} else if (entry.type === "custom_message" && entry.customType === CONTINUATION_MESSAGE) {
			flush();
			const details = readContinuationDetails(entry.details);
			if (!details || !goal || details.goalId !== goal.id) continue;
			recovery = details.kind === "recovery";
			automatic = details.kind === "continuation" || details.kind === "wake" || recovery;
			goalWork = true;
			responses = 0;
			if (details.iteration > goal.iteration && Number.isSafeInteger(details.iteration))
				goal = { ...goal, iteration: details.iteration };
		}
	}
	flush();
	if (goal?.status === "active" && !goal.wait && activeMs > 0)
		goal = { ...goal, clock: { ...goal.clock, activeMs: goal.clock.activeMs + activeMs } };
	return { state: goal === state.goal ? state : { ...state, goal }, branchTotal };
}
