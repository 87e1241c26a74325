/**
 * One copy is one finding (issue 31) for the copy agents make most: a function copied and one
 * statement in its middle changed. jscpd reports the verbatim parts before and after the change as
 * two exact clones and the whole function as a near-copy; the user and the model get one finding
 * for the one copy, naming the new location first. Real jscpd, untrusted plain directory.
 */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { customMessages, duplicatedFunction, otherFunction, sessionFixtures, waitFor } from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

/** A Python function (no syntax-tree comparison: jscpd compares JavaScript/TypeScript functions only). */
const PY = (name: string, report: string) => `def ${name}(items, tax_rate):
    subtotal = 0
    tax = 0
    for item in items:
        line = item["price"] * item["qty"]
        subtotal += line
        if item["taxable"]:
            tax += line * tax_rate
        if line > 1000:
            ${report}
    discount = subtotal * 0.05 if subtotal > 5000 else 0
    shipping = 0 if subtotal > 100 else 9.99
    total = subtotal - discount + shipping + tax
    return {
        "subtotal": subtotal,
        "tax": tax,
        "discount": discount,
        "shipping": shipping,
        "total": total,
    }
`;

describe("a copied function with one statement changed is one finding", () => {
	it("one copy is one finding: a copy edited in its middle is not told as two exact fragments", async () => {
		const s = await fixtures.start(
			{ "src/a.ts": duplicatedFunction("computeTotals"), "src/w.ts": otherFunction("countWords") },
			{ trusted: false },
		);
		const edited = duplicatedFunction("computeOrderTotals").replace(
			'console.log("large line", line);',
			'console.warn("line over the limit", line, item.qty);',
		);
		s.script(toolCall("write", { path: "src/orders.ts", content: edited }), reply("copied"));
		await s.prompt("copy and adapt");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const findings = customMessages(s, FINDINGS)[0]?.details?.findings ?? [];
		expect(findings.map((f) => f.locations.map((l) => l.path))).toEqual([["src/orders.ts", "src/a.ts"]]);
		// The told copy is not told again in pieces: the next check, after an unrelated write, finds nothing new.
		s.script(
			toolCall("write", { path: "src/notes.ts", content: 'export const notes = ["later"];\n' }),
			reply("noted"),
		);
		await s.prompt("note");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
	}, 120_000);

	it("one copy is one finding: an edited Python copy (no near-copy to name it) is one finding over both unchanged parts", async () => {
		const s = await fixtures.start(
			{ "app/totals.py": PY("compute_totals", 'print("large line", line)') },
			{ trusted: false },
		);
		const edited = PY("compute_totals", 'logger.warning("line over the limit: %s %s", line, item["qty"])');
		s.script(toolCall("write", { path: "app/orders.py", content: edited }), reply("copied"));
		await s.prompt("copy and adapt");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const content = JSON.stringify(customMessages(s, FINDINGS)[0]?.content);
		expect(content).toContain("1 new duplicated block");
		expect(content).toContain("app/orders.py:1-20 ≈ app/totals.py:1-20");
		s.script(toolCall("write", { path: "app/notes.py", content: 'NOTES = ["later"]\n' }), reply("noted"));
		await s.prompt("note");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
	}, 120_000);
});
