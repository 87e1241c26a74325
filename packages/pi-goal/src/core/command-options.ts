/** The options before a `/goal` objective (pure): `--tokens N` and `--cost X`, in any order. */
import { parseCost, parseTokenCount } from "./accounting.js";

const VALUE_HINT = {
	tokens: "a token budget like 100k, 1.5m or 300000",
	cost: "an amount in US dollars like 2.50",
};

/**
 * Splits leading `--tokens N` and `--cost X` (or `=` forms), in any order, off the text. A `--`
 * after them ends the options: the rest is the objective as written (`--tokens 50k -- --json`).
 */
export function takeTokens(text: string): { tokens?: number; cost?: number; rest: string; error?: string } {
	let rest = text;
	let tokens: number | undefined;
	let cost: number | undefined;
	for (;;) {
		const bare = /^--(tokens|cost)$/.exec(rest)?.[1] as "tokens" | "cost" | undefined;
		if (bare) return { rest: "", error: `--${bare} needs a value: ${VALUE_HINT[bare]}.` };
		const match = /^--(tokens|cost)(?:=|\s+)(\S*)\s*([\s\S]*)$/.exec(rest);
		if (!match) {
			if (rest.startsWith("--") && !/^--(?:\s|$)/.test(rest))
				return { rest, error: `Unknown option ${rest.split(/\s/)[0]}.` };
			const literal = /^--(?:\s+|$)([\s\S]*)$/.exec(rest);
			const objective = literal ? (literal[1] ?? "") : rest;
			return { ...(tokens ? { tokens } : {}), ...(cost ? { cost } : {}), rest: objective };
		}
		const value = match[2] ?? "";
		if (match[1] === "tokens") {
			tokens = parseTokenCount(value);
			if (tokens === undefined)
				return {
					rest: "",
					error: `Invalid token budget "${value}": use a positive number like 100k, 1.5m or 300000.`,
				};
		} else {
			cost = parseCost(value);
			if (cost === undefined)
				return {
					rest: "",
					error: `Invalid money limit "${value}": use an amount in US dollars greater than 0, like --cost 2.50.`,
				};
		}
		rest = (match[3] ?? "").trim();
	}
}
