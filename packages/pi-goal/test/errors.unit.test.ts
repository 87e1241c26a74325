/**
 * Error classification: native-helper parity, unsupported premature-close wording, mixed
 * quota/authentication errors. A natively recovered error in a real session: errors.session.test.ts.
 */
import { isContextOverflow, isRetryableAssistantError } from "@earendil-works/pi-ai";
import { overflowError, providerError, reply } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { errorFacts } from "../src/core/errors.js";
import { looksLikeUsageLimit, sanitizeDetail } from "../src/core/usage-limit.js";

const SAMPLES = [
	"503 Service Unavailable: upstream overloaded",
	"429 Too Many Requests: rate limit exceeded",
	"429 insufficient_quota: You exceeded your current quota",
	"Monthly usage limit reached",
	"prompt is too long: 5000 tokens > 4000 maximum",
	"Connection prematurely closed BEFORE response",
	"401 Unauthorized: invalid x-api-key",
	"fetch failed: ECONNRESET",
	"",
];

describe("error classification", () => {
	it.each(SAMPLES)("native-helper parity: %j", (text) => {
		const message = providerError(text);
		const facts = errorFacts(message);
		const overflow = isContextOverflow(message);
		expect(facts?.nativeOverflow).toBe(overflow);
		expect(facts?.nativeRetryable).toBe(!overflow && isRetryableAssistantError(message));
		// The usage classifier can only name errors Pi would not recover natively.
		if (facts?.usageLimit) expect(facts.nativeRetryable || facts.nativeOverflow).toBe(false);
	});

	it("premature close stays native-ineligible and is not a usage limit", () => {
		const facts = errorFacts(providerError("Connection prematurely closed BEFORE response"));
		expect(facts).toMatchObject({ nativeRetryable: false, nativeOverflow: false, usageLimit: false });
	});

	it("mixed wording: quota words cannot veto a native retry; auth words do not make a usage limit", () => {
		const mixed = errorFacts(providerError("429 Too Many Requests: per-minute usage limit, slow down"));
		expect(looksLikeUsageLimit("per-minute usage limit")).toBe(true);
		expect(mixed).toMatchObject({ nativeRetryable: true, usageLimit: false });
		const auth = errorFacts(providerError("401 invalid api key for billing project x"));
		expect(auth?.nativeRetryable).toBe(false);
		expect(auth?.usageLimit).toBe(true); // billing wording: the one documented classifier
		expect(errorFacts(providerError("403 forbidden: invalid credentials"))?.usageLimit).toBe(false);
	});

	it("non-error messages have no error facts; overflow is classified by Pi", () => {
		expect(errorFacts(reply("fine"))).toBeUndefined();
		expect(errorFacts(overflowError())?.nativeOverflow).toBe(true);
	});

	it("sanitises and bounds details", () => {
		expect(sanitizeDetail("  a\u0000b\u001b[1mc\u001b[0m  ")).toBe("a b c");
		expect(sanitizeDetail("x".repeat(500), 10)).toHaveLength(10);
		expect(sanitizeDetail(undefined)).toBe("no error text");
	});
});
