/**
 * A jscpd report read entry by entry (pure): a project with thousands of clone groups writes a
 * report of tens of MB (9,068 groups: 36 MB), mostly the duplicated code of each entry. Instead of
 * holding the whole text and its parsed tree, the report is fed in chunks; each entry of
 * `duplicates` is parsed on its own and kept only as a clone group (line hashes, no code), so
 * memory grows with the groups, not the report.
 */
import {
	type CloneGroup,
	MAX_GROUPS,
	numberOccurrences,
	type ParsedReport,
	type ParseResult,
	toGroup,
} from "./report.js";

/** Largest single report entry (one clone's code and locations). */
export const MAX_ENTRY_CHARS = 8 * 1024 * 1024;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

/** Feeds report text in chunks; {@link ReportStream.end} returns the parsed report. */
export class ReportStream {
	readonly #root: string;
	readonly #groups: CloneGroup[] = [];
	#omitted = 0;
	#statistics: unknown;
	#depth = 0;
	#inString = false;
	#escape = false;
	/** The last key read at the top level (a string at depth 1). */
	#key = "";
	#keyParts: string[] | undefined;
	#inDuplicates = false;
	/** What is being collected: a duplicates entry or the statistics object. */
	#capture: "entry" | "statistics" | undefined;
	#parts: string[] = [];
	#captured = 0;
	#error: string | undefined;
	#sawObject = false;
	#sawDuplicates = false;

	constructor(root: string) {
		this.#root = root;
	}

	/** Feeds the next chunk. */
	push(chunk: string): void {
		if (this.#error) return;
		let start = this.#capture || this.#keyParts ? 0 : -1;
		for (let i = 0; i < chunk.length; i++) {
			const c = chunk.charCodeAt(i);
			if (this.#inString) {
				if (this.#escape) this.#escape = false;
				else if (c === BACKSLASH) this.#escape = true;
				else if (c === QUOTE) {
					this.#inString = false;
					if (this.#keyParts) {
						this.#keyParts.push(chunk.slice(start, i));
						this.#key = this.#keyParts.join("");
						this.#keyParts = undefined;
						start = this.#capture ? start : -1;
					}
				}
				continue;
			}
			if (c === QUOTE) {
				this.#inString = true;
				if (this.#depth === 1 && !this.#capture) {
					this.#keyParts = [];
					start = i + 1;
				}
			} else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
				this.#depth++;
				if (this.#depth === 1) this.#sawObject = c === OPEN_OBJECT;
				else if (this.#depth === 2 && this.#key === "duplicates" && c === OPEN_ARRAY) {
					this.#inDuplicates = true;
					this.#sawDuplicates = true;
				} else if (!this.#capture && this.#depth === 3 && this.#inDuplicates && c === OPEN_OBJECT) {
					this.#capture = "entry";
					start = i;
				} else if (!this.#capture && this.#depth === 2 && this.#key === "statistics" && c === OPEN_OBJECT) {
					this.#capture = "statistics";
					start = i;
				}
			} else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
				const ends =
					(this.#capture === "entry" && this.#depth === 3) ||
					(this.#capture === "statistics" && this.#depth === 2);
				if (ends) {
					this.#parts.push(chunk.slice(start, i + 1));
					this.#finishCapture();
					start = -1;
				}
				if (this.#depth === 2 && this.#inDuplicates && c === CLOSE_ARRAY) this.#inDuplicates = false;
				this.#depth--;
				if (this.#depth < 0) this.#error = "jscpd wrote a report that is not valid JSON";
			}
		}
		if (this.#capture && start >= 0) this.#keep(chunk.slice(start));
		else if (this.#keyParts && start >= 0) this.#keyParts.push(chunk.slice(start));
	}

	#keep(part: string): void {
		this.#parts.push(part);
		this.#captured += part.length;
		if (this.#captured > MAX_ENTRY_CHARS)
			this.#error = `a jscpd report entry is larger than ${MAX_ENTRY_CHARS} characters`;
	}

	#finishCapture(): void {
		const text = this.#parts.join("");
		const kind = this.#capture;
		this.#parts = [];
		this.#captured = 0;
		this.#capture = undefined;
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			this.#error = "jscpd wrote a report that is not valid JSON";
			return;
		}
		if (kind === "statistics") {
			this.#statistics = value;
			return;
		}
		const group = this.#groups.length < MAX_GROUPS ? toGroup(this.#root, value) : undefined;
		if (group) this.#groups.push(group);
		else this.#omitted++;
	}

	/** The parsed report, or why the text is not a jscpd report. */
	end(): ParseResult {
		if (this.#error) return { ok: false, error: this.#error };
		if (this.#depth !== 0 || this.#inString || !this.#sawObject)
			return { ok: false, error: "jscpd wrote a report that is not valid JSON" };
		if (!this.#sawDuplicates) return { ok: false, error: "jscpd wrote a report without a duplicates list" };
		const total = (this.#statistics as { total?: { sources?: unknown; lines?: unknown } } | undefined)?.total;
		const count = (n: unknown) => (Number.isSafeInteger(n) ? (n as number) : undefined);
		const lines = count(total?.lines);
		const report: ParsedReport = {
			groups: numberOccurrences(this.#groups),
			omitted: this.#omitted,
			sources: count(total?.sources),
			...(lines === undefined ? {} : { lines }),
		};
		return { ok: true, report };
	}
}
