import { describe, expect, it } from "vitest";
import { renderLines } from "../src/adapters/renderers.js";
import { bootText, footerText, warningText } from "../src/core/texts.js";

const boot = bootText({
	windowId: "w1-abc",
	cause: "new_context",
	handoff: "step two next",
	userRequest: undefined,
	kept: "nothing",
});

describe("boot and warning messages in the transcript", () => {
	it("a boot message shows a one-line header with its window and handoff, body collapsed", () => {
		const lines = renderLines("boot", boot, { windowId: "w1-abc" }, false);
		expect(lines.header).toBe("reset · window w1-abc starts here · with handoff");
		expect(lines.collapsed).toBe(true);
	});

	it("expanded, the body is the full note the model received", () => {
		const lines = renderLines("boot", [{ type: "text", text: boot }], { windowId: "w1-abc" }, true);
		expect(lines.collapsed).toBe(false);
		expect(lines.body.join("\n")).toBe(boot);
	});

	it("a boot without handoff says nothing about one; a missing window id shows ?", () => {
		const plain = bootText({
			windowId: "w2",
			cause: "/reset",
			handoff: undefined,
			userRequest: undefined,
			kept: "prompt",
		});
		expect(renderLines("boot", plain, undefined, false).header).toBe("reset · window ? starts here");
	});

	it("a warning's header names the window and the tokens left", () => {
		const lines = renderLines("warning", warningText("w3-x", 9000), { windowId: "w3-x" }, false);
		expect(lines.header).toBe("reset · checkpoint warning · window w3-x · ~9000 tokens left");
	});
});

describe("the pi-reset footer", () => {
	const facts = { enabled: true, windowId: "w0", resets: 0, pending: false };
	it("footer follows the shared `<noun> <state> · <detail>` grammar", () => {
		expect(footerText(facts)).toBe("reset: w0");
		expect(footerText({ ...facts, windowId: "w2-k3f9", resets: 2, pending: true })).toBe(
			"reset: w2-k3f9 · pending",
		);
		expect(footerText({ ...facts, enabled: false })).toBe("reset: off");
	});
});
