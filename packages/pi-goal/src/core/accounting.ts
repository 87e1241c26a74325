/**
 * Token and time accounting (pure). Goal usage is the branch total minus the activation
 * baseline, clamped at zero after rewinds, plus tokens spent in earlier active periods.
 */
import type { GoalClock, GoalRecord, GoalUsage } from "./types.js";

/** The usage fields accounting reads from an assistant message. */
export interface UsageLike {
	readonly totalTokens?: unknown;
	readonly input?: unknown;
	readonly output?: unknown;
	readonly cacheRead?: unknown;
	readonly cacheWrite?: unknown;
}

function finite(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * Tokens of one assistant message: a finite non-negative `totalTokens`, else
 * input + output + cacheRead + cacheWrite (each finite and non-negative, else 0).
 */
export function messageTokens(usage: UsageLike | undefined): number {
	if (!usage) return 0;
	const total = usage.totalTokens;
	if (typeof total === "number" && Number.isFinite(total) && total >= 0) return total;
	return finite(usage.input) + finite(usage.output) + finite(usage.cacheRead) + finite(usage.cacheWrite);
}

/** Tokens the goal has used, given the current branch total. */
export function goalTokens(usage: GoalUsage, branchTotal: number): number {
	const current = usage.baseline === null ? 0 : Math.max(0, branchTotal - usage.baseline);
	return usage.spent + current;
}

/** Starts an active accounting period. */
export function beginUsage(usage: GoalUsage, branchTotal: number): GoalUsage {
	return usage.baseline === null ? { spent: usage.spent, baseline: branchTotal } : usage;
}

/** Ends an active accounting period, folding it into `spent`. */
export function endUsage(usage: GoalUsage, branchTotal: number): GoalUsage {
	return { spent: goalTokens(usage, branchTotal), baseline: null };
}

/** Whether the token budget is exhausted. */
export function tokensExhausted(goal: GoalRecord, branchTotal: number): boolean {
	return goal.tokenBudget !== null && goalTokens(goal.usage, branchTotal) >= goal.tokenBudget;
}

/** Whether the money limit is reached. */
export function costExhausted(goal: GoalRecord): boolean {
	return goal.costLimit !== undefined && (goal.costSpent ?? 0) >= goal.costLimit;
}

/** Whether the budget (tokens or money) is exhausted. */
export function budgetExhausted(goal: GoalRecord, branchTotal: number): boolean {
	return tokensExhausted(goal, branchTotal) || costExhausted(goal);
}

/** The cost Pi reports with an assistant message (`usage.cost.total`, US dollars), else 0. */
export function messageCost(usage: UsageLike | undefined): number {
	const cost = (usage as { cost?: { total?: unknown } } | undefined)?.cost?.total;
	return typeof cost === "number" && Number.isFinite(cost) && cost > 0 ? cost : 0;
}

/** Parses a money limit: `2.50`, `$2.50`, `0.5` (US dollars, > 0, at most 1,000,000). */
export function parseCost(text: string): number | undefined {
	const match = /^\$?(\d+(?:\.\d+)?)$/.exec(text.trim());
	if (!match) return undefined;
	const value = Number(match[1]);
	return Number.isFinite(value) && value > 0 && value <= 1_000_000 ? value : undefined;
}

/** Formats dollars: $0.42, $2.50, $120. */
export function formatCost(dollars: number): string {
	return dollars >= 100 ? `$${Math.round(dollars)}` : `$${dollars.toFixed(2)}`;
}

/** Active elapsed milliseconds at `now`. */
export function elapsedMs(clock: GoalClock, now: number): number {
	return clock.activeMs + (clock.since === null ? 0 : Math.max(0, now - clock.since));
}

/** Starts the clock (no-op when running). */
export function startClock(clock: GoalClock, now: number): GoalClock {
	return clock.since === null ? { activeMs: clock.activeMs, since: now } : clock;
}

/** Stops the clock (no-op when stopped). */
export function stopClock(clock: GoalClock, now: number): GoalClock {
	return clock.since === null ? clock : { activeMs: elapsedMs(clock, now), since: null };
}

/** Folds the running period into `activeMs` (the clock keeps running from `now`). */
export function foldClock(clock: GoalClock, now: number): GoalClock {
	return clock.since === null ? clock : { activeMs: elapsedMs(clock, now), since: now };
}

/** Parses `100k`, `1.5m`, `300000` into a positive integer token count. */
export function parseTokenCount(text: string): number | undefined {
	const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
	if (!match) return undefined;
	const base = Number(match[1]);
	const unit = (match[2] ?? "").toLowerCase();
	const value = Math.round(base * (unit === "k" ? 1_000 : unit === "m" ? 1_000_000 : 1));
	return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** Formats a token count compactly: 950, 80k, 1.5m. */
export function formatTokens(tokens: number): string {
	if (tokens >= 1_000_000) return `${trim(tokens / 1_000_000)}m`;
	if (tokens >= 1_000) return `${trim(tokens / 1_000)}k`;
	return String(Math.round(tokens));
}

function trim(value: number): string {
	return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

/** Formats a duration compactly: 45s, 3m, 2h05m. */
export function formatDuration(ms: number): string {
	const seconds = Math.floor(ms / 1000);
	if (seconds < 60) return `${seconds}s`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes}m`;
	const hours = Math.floor(minutes / 60);
	return `${hours}h${String(minutes % 60).padStart(2, "0")}m`;
}
