/**
 * Error facts from Pi's native classifiers. Eligibility for Pi's recovery comes only from pi-ai's
 * `isRetryableAssistantError()` and `isContextOverflow()`; pi-goal adds no retry pattern. The
 * usage-limit wording (usage-limit.ts) can only name an error Pi would not retry anyway.
 */
import { type AssistantMessage, isContextOverflow, isRetryableAssistantError } from "@earendil-works/pi-ai";
import type { ErrorFacts } from "./outcome.js";
import { looksLikeUsageLimit, sanitizeDetail } from "./usage-limit.js";

/** The assistant-message fields classification reads. */
export type AssistantLike = Pick<AssistantMessage, "stopReason"> &
	Partial<Pick<AssistantMessage, "errorMessage" | "provider" | "model" | "api" | "usage">>;

function safely(check: () => boolean): boolean {
	try {
		return check() === true;
	} catch {
		return false;
	}
}

/** Classifies a final assistant error; undefined when the message is not an error. */
export function errorFacts(message: AssistantLike, contextWindow?: number): ErrorFacts | undefined {
	if (message.stopReason !== "error") return undefined;
	const full = message as AssistantMessage;
	const nativeOverflow = safely(() => isContextOverflow(full, contextWindow));
	const nativeRetryable = !nativeOverflow && safely(() => isRetryableAssistantError(full));
	const usageWording = looksLikeUsageLimit(message.errorMessage);
	const scope =
		typeof message.provider === "string" && typeof message.model === "string"
			? { provider: message.provider, model: message.model, api: String(message.api ?? "") }
			: undefined;
	return {
		...(scope ? { scope } : {}),
		detail: sanitizeDetail(message.errorMessage),
		nativeRetryable,
		nativeOverflow,
		usageLimit: !nativeRetryable && !nativeOverflow && usageWording,
		usageWording,
	};
}

/**
 * Abort messages of an AbortSignal that fired before the provider answered (Node's and undici's
 * AbortError, pi-ai's own). Pi 1.3 records such a request as `stopReason: "error"` with this text.
 */
const ABORT_MESSAGES = new Set([
	"This operation was aborted",
	"The operation was aborted",
	"Request was aborted",
]);

/**
 * The stop reason as pi-goal reads it: a request aborted before any answer is "aborted" on every Pi
 * (Pi 1.3 reports it as an error), so it is neither a model response nor a provider error.
 */
export function effectiveStopReason(message: {
	readonly stopReason?: string;
	readonly errorMessage?: string;
}): string | undefined {
	if (message.stopReason === "error" && ABORT_MESSAGES.has(String(message.errorMessage ?? "").trim()))
		return "aborted";
	return message.stopReason;
}
