/**
 * Clone kinds (pure): what a jscpd 5.3.2 report entry is, which jscpd arguments detect the kinds a
 * user turned on, and how a near-miss clone's lines are hashed for identity.
 *
 * - `exact`: the same tokens (jscpd's default token detection).
 * - `renamed`: the same function with identifiers or literals changed (Type-2): jscpd's AST
 *   function comparison (`--similarity`) at similarity 1.
 * - `similar`: a near-miss copy of a function, a statement added, removed or changed (Type-3): the
 *   AST comparison at or above the threshold.
 *
 * jscpd's token-level `--ignore-identifiers` is deliberately not used: on hand-written code it
 * matches any two long lists of names (export lists, enums), about 30 false findings per 10,000
 * lines (bench/README.md, "Clone kinds").
 */
import { fnv } from "./line-hash.js";

/** A clone kind. */
export type CloneKind = "exact" | "renamed" | "similar";

/** Every kind, in message order. */
export const CLONE_KINDS: readonly CloneKind[] = ["exact", "renamed", "similar"];

/** What a scan detects; a baseline records the detection it was captured with. */
export interface Detection {
	/** Kinds reported. */
	readonly kinds: readonly CloneKind[];
	/** Least AST similarity of a `similar` clone (0.5–0.99). */
	readonly similarity: number;
	/**
	 * jscpd `--min-tokens` for every kind. When undefined: exact clones from jscpd's default (or a
	 * trusted project's config), renamed and near-copies from {@link NEAR_COPY_MIN_TOKENS}.
	 */
	readonly minTokens?: number;
	/** jscpd `--min-lines`; likewise. */
	readonly minLines?: number;
}

/** Exact clones only: what baselines without a recorded detection were captured with. */
export const EXACT_ONLY: Detection = Object.freeze({
	kinds: Object.freeze(["exact"] as CloneKind[]),
	similarity: 0.7,
});

/** Whether a detection reports exact clones only. */
export function isExactOnly(detection: Detection): boolean {
	return !detection.kinds.includes("renamed") && !detection.kinds.includes("similar");
}

/** AST similarity from which a function pair counts as a renamed copy rather than a near-copy. */
export const RENAMED_SIMILARITY = 0.995;

/** Reads a detection persisted with a baseline; undefined when absent or malformed. */
export function parseDetection(raw: unknown): Detection | undefined {
	if (typeof raw !== "object" || raw === null) return undefined;
	const value = raw as Record<string, unknown>;
	const kinds = value.kinds;
	if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((kind) => CLONE_KINDS.includes(kind)))
		return undefined;
	if (typeof value.similarity !== "number" || !(value.similarity > 0 && value.similarity <= 1))
		return undefined;
	const count = (n: unknown) => n === undefined || (Number.isSafeInteger(n) && (n as number) > 0);
	if (!count(value.minTokens) || !count(value.minLines)) return undefined;
	return {
		kinds: kinds as CloneKind[],
		similarity: value.similarity,
		...(value.minTokens === undefined ? {} : { minTokens: value.minTokens as number }),
		...(value.minLines === undefined ? {} : { minLines: value.minLines as number }),
	};
}

/** jscpd's own `--min-tokens`: the least size of an exact clone unless configured. */
export const JSCPD_MIN_TOKENS = 50;

/**
 * Least size, in jscpd tokens, of a renamed or near-copy function when no minimum is configured.
 * At jscpd's 50 a tenth of the corpus functions cannot be matched at all; from 30 the default kinds
 * find 93% of agent-style copies at 0.8 false findings per 10,000 lines (bench/README.md, "Clone
 * kinds"). jscpd has one `--min-tokens` for every kind, so it runs with 30 and the exact clones
 * under {@link JSCPD_MIN_TOKENS} are dropped from the report: exact findings stay jscpd's default.
 */
export const NEAR_COPY_MIN_TOKENS = 30;

/** What one scan passes to jscpd for a detection, and how its report is filtered. */
export interface DetectionPlan {
	/** Arguments placed before `--` (numbers only, nothing user-typed). */
	readonly args: string[];
	/** Exact clones under this many tokens are dropped (jscpd ran with a lower minimum for near-copies). */
	readonly exactMinTokens?: number;
}

/**
 * The jscpd arguments and report filter of a detection. A configured `minTokens` applies to every
 * kind; so does a trusted project's own jscpd token minimum (`projectMinTokens`: its `.jscpd.json`
 * or `package.json` sets one), which the lower near-copy minimum would otherwise override.
 */
export function detectionPlan(detection: Detection, projectMinTokens = false): DetectionPlan {
	const ast = detection.kinds.includes("similar")
		? detection.similarity
		: detection.kinds.includes("renamed")
			? 0.99
			: undefined;
	const nearMinimum = ast !== undefined && detection.minTokens === undefined && !projectMinTokens;
	const minTokens = nearMinimum ? NEAR_COPY_MIN_TOKENS : detection.minTokens;
	return {
		args: [
			...(ast === undefined ? [] : ["--similarity", String(ast)]),
			...(minTokens === undefined ? [] : ["--min-tokens", String(minTokens)]),
			...(detection.minLines === undefined ? [] : ["--min-lines", String(detection.minLines)]),
		],
		...(nearMinimum && detection.kinds.includes("exact") ? { exactMinTokens: JSCPD_MIN_TOKENS } : {}),
	};
}

/** jscpd arguments for a detection (see {@link detectionPlan}). */
export function detectionArguments(detection: Detection, projectMinTokens = false): string[] {
	return detectionPlan(detection, projectMinTokens).args;
}

/**
 * Most renamed and near-copy pairs a session keeps detecting: beyond both this and one pair per 100
 * lines, the project is made of alike functions (generated code, templates) and jscpd reports every
 * pair of them, up to 32,640 per group. Writing and reading that report, not the comparison, is
 * the cost (several times an exact scan; bench/README.md, "Clone kinds"), and a near-copy of one
 * function among hundreds alike tells the agent nothing. Real hand-written code: 106 pairs in
 * 63,600 lines; a generated SDK: 2,270 in 62,000.
 */
export const MAX_NEAR_COPY_PAIRS = 1_000;

/**
 * Why a baseline scan's report has too many renamed and near-copy pairs to keep detecting them this
 * session (see {@link MAX_NEAR_COPY_PAIRS}); undefined when it has not.
 */
export function nearCopyOverload(
	groups: readonly { readonly kind?: CloneKind }[],
	lines: number | undefined,
): string | undefined {
	const pairs = groups.filter((group) => (group.kind ?? "exact") !== "exact").length;
	if (pairs <= MAX_NEAR_COPY_PAIRS || pairs <= (lines ?? 0) / 100) return undefined;
	const size = lines === undefined ? "" : ` in ${lines} lines`;
	return `the project has ${pairs} renamed or near-copy pairs${size}, more than ${MAX_NEAR_COPY_PAIRS} and 1 per 100 lines: many alike functions`;
}

/** What a check that found nothing says it checked, when not every kind: ` (checked: exact)`. */
export function checkedNote(detection: Detection | undefined): string {
	const kinds = detection?.kinds ?? EXACT_ONLY.kinds;
	return kinds.length === CLONE_KINDS.length ? "" : ` (checked: ${kinds.join(", ")})`;
}

/** The kind of one raw report entry (`kind`, `similarity` of jscpd 5.x; older reports: exact). */
export function classify(raw: { readonly kind?: unknown; readonly similarity?: unknown }): {
	kind: CloneKind;
	similarity?: number;
} {
	const similarity =
		typeof raw.similarity === "number" && Number.isFinite(raw.similarity) ? raw.similarity : undefined;
	switch (raw.kind) {
		case undefined:
		case "exact":
			return { kind: "exact" };
		case "renamed":
			return { kind: "renamed" };
		default:
			return (similarity ?? 0) >= RENAMED_SIMILARITY
				? { kind: "renamed", similarity }
				: { kind: "similar", similarity };
	}
}

const KEYWORDS = new Set(
	(
		"abstract as async await break case catch class const continue debugger declare default delete do else enum " +
		"export extends false finally for from function get if implements import in instanceof interface is keyof let " +
		"new null of private protected public readonly return satisfies set static super switch this throw true try " +
		"type typeof undefined var void while with yield"
	).split(" "),
);

/** A line with identifiers (`i`), strings (`#`) and numbers (`0`) replaced (keywords and operators kept). */
export function shapeOf(line: string): string {
	return line
		.replace(/(["'`])(?:\\.|(?!\1).)*\1/g, "#")
		.replace(/\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?n?\b|\b0x[\da-f]+\b/gi, "0")
		.replace(/[A-Za-z_$][\w$]*/g, (word) => (KEYWORDS.has(word) ? word : "i"))
		.replace(/\s+/g, " ")
		.trim();
}

/**
 * Line hashes of a renamed or near-miss fragment: each significant line's shape (see
 * {@link shapeOf}), so both sides of a renamed copy hash alike whichever side jscpd quotes, and a
 * re-pairing does not look like new code. Salted apart from exact line hashes. -1 as in
 * `fragmentHashes` for lines without code of their own.
 */
export function shapeHashes(fragment: string): number[] {
	return fragment
		.split("\n")
		.map((line) => ((line.match(/\w/g)?.length ?? 0) >= 2 ? fnv(`~${shapeOf(line)}`) : -1));
}
