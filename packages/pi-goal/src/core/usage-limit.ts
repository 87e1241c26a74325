/**
 * The one usage-limit classifier and the error-detail sanitiser (pure).
 *
 * The classifier recognises subscription, quota, credit and billing exhaustion wording. It is the
 * only text heuristic pi-goal has, and it never decides retry eligibility: Pi's own
 * `isRetryableAssistantError()` / `isContextOverflow()` do (see errors.ts). Its list follows the
 * non-retryable provider-limit list of pi-ai's retry classifier plus generic credit/billing words.
 */
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { MAX_DETAIL } from "./types.js";

/** Usage-limit wording (case-insensitive). One place; no retry patterns. */
export const USAGE_LIMIT_PATTERN = new RegExp(
	[
		"insufficient_quota",
		"quota[ _-]?(?:exceeded|exhausted|reached|limit)",
		"exceeded (?:your|the) (?:current )?quota",
		"out of (?:budget|credits?)",
		"insufficient (?:credits?|balance|funds)",
		"credits? (?:balance|exhausted|depleted|limit)",
		"available balance",
		"billing",
		"payment required",
		"usage[ _-]?limit",
		"subscription[ _-](?:limit|quota|expired|required|sharing)",
		"GoUsageLimitError",
		"FreeUsageLimitError",
		'"code"\\s*:\\s*"?1308(?![0-9])',
	].join("|"),
	"i",
);

/** Whether error text reads as subscription, quota, credit or billing exhaustion. */
export function looksLikeUsageLimit(text: string | undefined): boolean {
	return typeof text === "string" && USAGE_LIMIT_PATTERN.test(text);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g;

/**
 * Bounded, single-line display text of provider error detail: escape sequences and control or
 * bidi characters removed, whitespace collapsed, at most `max` characters. Blank → fallback.
 */
export function sanitizeDetail(text: unknown, max = MAX_DETAIL, fallback = "no error text"): string {
	const raw = typeof text === "string" ? text : "";
	const clean = raw.replace(ANSI, " ").replace(CONTROL, " ").replace(/\s+/g, " ").trim();
	if (clean === "") return fallback;
	return clean.length > max ? `${cutText(clean, Math.max(1, max - 1))}…` : clean;
}
