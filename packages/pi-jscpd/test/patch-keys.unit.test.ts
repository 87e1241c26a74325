import { describe, expect, it } from "vitest";
import { patchKeys, samePatchAs } from "../src/core/patch-keys.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const M = "d".repeat(40);
const patch = (index: string, hunk: string, added: string) =>
	`diff --git a/src/e.ts b/src/e.ts\nnew file mode 100644\nindex ${index}\n--- /dev/null\n+++ b/src/e.ts\n${hunk}\n+${added}\n`;

describe("patch keys", () => {
	it("a replayed commit has its original's key whatever its blob ids and line numbers; another change does not", () => {
		const output = [
			`\0${A}\n\n${patch("0000000..1111111", "@@ -0,0 +1 @@", "export const a = 1;")}`,
			`\0${B}\n\n${patch("0000000..2222222", "@@ -0,0 +1,1 @@ context", "export const a = 1;")}`,
			`\0${C}\n\n${patch("0000000..1111111", "@@ -0,0 +1 @@", "export const c = 3;")}`,
			`\0${M}\n\n`,
		].join("");
		const keys = patchKeys(output);
		expect(keys.get(A)).toBe(keys.get(B));
		expect(keys.get(C)).not.toBe(keys.get(A));
		expect(keys.has(M)).toBe(false);
		expect(samePatchAs(keys, [B, C, M], [A])).toEqual([B]);
		expect(samePatchAs(keys, [M], [M])).toEqual([]);
	});
});
