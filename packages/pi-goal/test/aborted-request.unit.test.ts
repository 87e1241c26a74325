import { describe, expect, it } from "vitest";
import { effectiveStopReason } from "../src/core/errors.js";

describe("a request aborted before any answer is not a response (Pi 1.3 reports it as an error)", () => {
	it.each(["This operation was aborted", "The operation was aborted", "Request was aborted"])(
		"error %j reads as aborted",
		(errorMessage) => {
			expect(effectiveStopReason({ stopReason: "error", errorMessage })).toBe("aborted");
		},
	);
	it.each(["connect ECONNABORTED", "Connection aborted by peer: 503", "429 rate limited", ""])(
		"a provider error %j stays an error",
		(errorMessage) => {
			expect(effectiveStopReason({ stopReason: "error", errorMessage })).toBe("error");
		},
	);
	it("other stop reasons pass through", () => {
		expect(effectiveStopReason({ stopReason: "toolUse" })).toBe("toolUse");
		expect(effectiveStopReason({ stopReason: "aborted", errorMessage: "x" })).toBe("aborted");
	});
});
