/**
 * Rule "a bounded text never splits a character": `jscpd_run scan`'s result is cut at the package's
 * text bound, and a project whose paths are emoji puts a surrogate pair at the cut. The model must
 * receive well-formed text (a lone surrogate makes some providers reject every later request).
 */
import { hasLoneSurrogate } from "@pi-lifecycle/lifecycle-kit";
import { messageText, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { duplicatedFunction, sessionFixtures } from "./helpers.js";

const fixtures = sessionFixtures();

/**
 * Twelve copies of one function, each three emoji folders deep under an emoji file name (paths of
 * about 480 UTF-16 units): the result is longer than the bound, and the four x's put the cut inside
 * an emoji.
 */
function emojiProject(): Record<string, string> {
	const folders = `${"😀".repeat(60)}/`.repeat(3);
	const files: Record<string, string> = {};
	for (let i = 0; i < 12; i++)
		files[`src/${folders}${"😀".repeat(50)}${i}xxxx.ts`] = duplicatedFunction("computeOrder");
	return files;
}

describe("text bounds", () => {
	it("a scan result cut at the text bound reaches the model without a lone surrogate", async () => {
		const s = await fixtures.start(emojiProject(), { prefix: "pi-jscpd-emoji-" });
		s.script(toolCall("jscpd_run", { command: "scan" }), reply("scanned"));
		await s.prompt("scan the project");
		const result = s.requests.at(-1)?.messages.at(-1);
		const text = result ? messageText(result) : "";
		expect(hasLoneSurrogate(text)).toBe(false);
		expect(text).toMatch(/😀\n… \(truncated\)$/); // the cut was inside the emoji run
	});
});
