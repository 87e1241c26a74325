/** The options before a `/goal` objective (pure): `--tokens N` and `--cost X`, in any order. */
import { parseCost, parseTokenCount } from "./accounting.js";

/** Splits leading `--tokens N` and `--cost X` (or `=` forms), in any order, off the text. */
export function takeTokens(text: string): { tokens?: number; cost?: number; rest: string; error?: string } {
	let rest = text;
	let tokens: number | undefined;
	let cost: number | undefined;
	for (;;) {
		const match = /^--(tokens|cost)(?:=|\s+)(\S*)\s*([\s\S]*)$/.exec(rest);
		if (!match) {
			if (rest.startsWith("--") && !/^--(?:\s|$)/.test(rest))
				return { rest, error: `Unknown option ${rest.split(/\s/)[0]}.` };
			return { ...(tokens ? { tokens } : {}), ...(cost ? { cost } : {}), rest };
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
