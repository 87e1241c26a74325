/**
 * The completion check of `goal_complete` (pure). The tool is authoritative: a summary is never
 * rejected. Only a summary that plainly admits unfinished work (a narrow list of first-person and
 * state phrases, not words like "failing", "TODO" or "bug", which finished work mentions all the
 * time) is asked once for confirmation; the same goal's next call is accepted. The corpus in
 * test/completion-corpus.unit.test.ts measures both error kinds.
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";

/** Phrases that admit unfinished work. Negated forms ("nothing left to do") do not match. */
export const UNFINISHED_ADMISSIONS: readonly RegExp[] = [
	/\b(?:still|yet) (?:need|needs|have|has) to\b|\bstill needs? (?:work|fixing|tests?|docs?)\b/i,
	// Present tense or a list item only: "was not yet applied, so I applied it" and a quoted
	// "'not yet implemented' panic" narrate fixed work.
	/\b(?:is|are|has|have|remains?|still) not yet\b|^\s*(?:[-*]\s*)?(?:[\w ]{1,40}:\s*)?not (?:yet|done|written|started)\b|\bnot (?:done|finished|complete|working) yet\b/im,
	/\b(?:haven't|have not|hasn't|has not) (?:yet )?(?:been )?(?:run|tested|verified|implemented|finished|completed)\b/i,
	/(?<!\b(?:no|any|without) )\b(?:remaining|outstanding|unfinished|open) (?:work|tasks?|items?|steps?|todos?)\s*(?::|include|are)(?!\s*(?:none|n\/a|nothing|0|zero)\b)/i,
	/(?<!\b(?:nothing|no work|no more|none)(?: is| was)? )\b(?:left|remains?|remaining) to (?:do|implement|fix|finish|be done)\b/i,
	/\b(?:is|are|only|still|remains?) (?:partially|partly|half) (?:done|complete|completed|implemented|working|fixed)\b|^\s*(?:[-*]\s*)?(?:partially|partly) (?:done|complete|completed|implemented)\b/im,
	/\b(?:is|are|still|as) (?:a |an )?work in progress\b|^\s*(?:[-*]\s*)?work in progress\b/im,
	/\b(?:could not|couldn't|was unable to|were unable to|wasn't able to|was not able to|did not|didn't) (?:finish|complete|get (?:it|them|the [\w -]{1,30}) to (?:pass|work))\b/i,
	/\b(?:tests?|build|ci|suite|checks?) (?:is |are )?still (?:fail|failing|broken|red)\b/i,
	/\b[1-9]\d* tests? (?:are |is )?(?:still )?(?:failing|fail)\b(?! before)/i,
	/\bleft (?:a |an |some |several |\d+ )?(?:todos?|fixmes?|stubs?)\b|\b(?:is|are) left for (?:a )?(?:follow-?up|later|another)\b/i,
	/\bran out of (?:time|budget|tokens)\b|\bdid(?: not|n't) get to\b|\b(?:did not|didn't) (?:write|add) (?:any )?tests\b/i,
	/\b(?:is|are|remains?|still) (?:stubbed|a stub|a placeholder)\b/i,
	// A part named as still broken or left undone, without the listed idioms (audit).
	/(?<!\b(?:that|which|who) )\b(?:is|are) still (?:broken|missing|incomplete|unimplemented|pending)\b|\b(?:remains?|remaining) (?:unimplemented|incomplete|unfinished|broken)\b/i,
	/\b(?:is|are) not (?:done|finished|implemented|wired(?: up)?)\s*(?:[.;]|$)|\bI skipped (?:the|some|a few|two|three|\d+) (?!(?:already|previously)\b)/im,
	// …unless the clause says it was before the change ("Tests fail on main without this patch").
	/^\s*(?:[-*]\s*)?(?:the )?(?:tests?|build|ci|checks?) (?:still )?fails? (?:on|in|with|for)\b(?![^.;\n]*\b(?:without|before|until|unless|prior to)\b)/im,
	// A plan or a promise of work to come is not finished work (issue 30: "I will implement this now").
	/^\s*(?:#+\s*)?(?:my )?plan\s*:(?!\s*(?:done|complete|completed|finished|executed)\b(?!\s+(?:with|except|but)\b))|\bI(?:'ll| will| am going to|'m going to) (?:now |next |then |also )?(?:implement|add|write|fix|create|update|start|do|make|finish|refactor|build|wire)\b/im,
	// …in any common phrasing: "let me add", "the plan is to", "I need to", "I plan to", "I am about
	// to", a sentence starting "Will implement" or "Going to add", "Proposed approach:".
	/\blet me (?:now |next |first |then )?(?:implement|add|write|fix|create|update|start|finish|refactor|build|wire)\b(?!\s*(?::|that\b))|\bhere(?:'s| is) (?:my|the) plan\s*:|\b(?:the|my) plan is to (?:now |next |first |then )?(?:implement|add|write|fix|create|update|start|finish|refactor|build|wire|do|make|change|rewrite|replace|remove|move|split|migrate|port|test|use)\b|(?<!\b(?:nothing|anything)(?: else| more)? )\bI (?:still )?need to (?:implement|add|write|fix|create|update|finish|refactor|build|wire)\b|\bI plan to (?:now |next |first |then )?(?:implement|add|write|fix|create|update|start|finish|refactor|build|wire|do|make|change|rewrite|replace|remove|move|split|migrate|port|test|use)\b|\bI(?:'m| am) about to\b|(?:^\s*(?:[-*]\s*)?|[.!;]\s+)(?:will|going to) (?:now |next |then )?(?:implement|add|write|fix|create|update|finish|refactor|build|wire)\b|^\s*(?:#+\s*)?(?:proposed|suggested) (?:approach|plan|changes)\s*:/im,
	/(?:^\s*(?:[-*]\s*)?|[.!]\s+)(?:todo|to[- ]do|remaining)\s*:(?!\s*(?:none|n\/a|nothing|0|zero|all (?:\w+ )?(?:done|complete|completed|finished|checked off))\b)/im,
	// "Next steps:" lists work to come, unless its first item is the user's to do once the goal is
	// done ("review and merge the PR", "you may want to tag a release", "optional: deploy").
	/(?:^\s*(?:[-*]\s*)?|[.!]\s+)next steps?\s*:(?!\s*(?:[-*]|\d+[.)])?\s*(?:none|n\/a|nothing|you|your|optional(?:ly)?|if you|consider|feel free|when you|review|merge|release|publish|deploy|announce|approve|ship|tag|cut)\b)/im,
	/\bexcept (?:for )?(?:the )?[\w -]{1,40}, which I (?:skipped|left out|did not|didn't)\b|\b(?:steps?|tasks?|items?) [\d\s,–-]+(?:are|is) (?:still )?(?:pending|open|todo)\b/i,
];

/** The phrase of a summary that admits unfinished work, or undefined. */
export function unfinishedAdmission(summary: string): string | undefined {
	for (const pattern of UNFINISHED_ADMISSIONS) {
		const match = pattern.exec(summary);
		if (match) return match[0];
	}
	return undefined;
}

/** What goal_complete does with a summary. */
export type CompletionDecision =
	| { readonly accept: true }
	| { readonly accept: false; readonly phrase: string; readonly reason: string };

/** What the tool knows about the goal's work besides the summary (issue 30). */
export interface CompletionFacts {
	/** Whether any tool other than the goal tools ran without failing while this goal was active. */
	readonly toolWork: boolean;
	/** A command of the same tool batch that failed or whose result is not in yet (its label). */
	readonly batchProblem?: string;
	/** The model's `open_items`, when it gave them. */
	readonly openItems?: readonly string[];
}

/** Unchecked task-list items (`- [ ] …`), in any language. */
const UNCHECKED = /^\s*(?:[-*+]|\d+[.)])\s+\[ \]\s*\S.*$/m;
/**
 * Common English words that other languages do not share as everyday words: "is" (Dutch), "on"
 * (French), "to" (Polish, Czech), "was" (German), "of" (Dutch), "for" (Danish), "as" (Portuguese), "in", "a"
 * and "Tests" are left out, so one of them does not make a Dutch or French summary read as English.
 */
const ENGLISH =
	/\b(?:the|and|with|are|were|been|has|have|this|that|these|which|from|into|every|now|not|added|fixed|implemented|updated|removed|passes|passed|pass|done|works|verified|succeeds|succeeded|returns|complete|completed|finished|tested|all|ran|none|before|after|passing|failing|left|out|by|but|its|each|both|when|then|than|only|any|more|new|used|using|read|written|asked|runs|green|merged|shipped|ready|lgtm|clean|resolved|released|deployed)\b/gi;

/**
 * Everyday words of other languages that English text does not use ("aber", "mais", "pero", "nog",
 * "jeszcze"…): one of them means the summary is not English, whatever English words or code it
 * quotes ("Parser implemented, aber Tests fehlen noch."). Words English shares or finished summaries
 * name ("die", "men", "met", "con", "a", "is", "et al.", "EN", "IST", "DES", "Las Vegas") are left out, and
 * so are the names of tools, fonts and functions ("Jest", "Noto Sans", "sin", "ALE", "Webpack Encore", "mangler").
 */
const FOREIGN =
	/(?:^|\s)(?:und|aber|noch|nicht|auf|bis|für|ohne|oder|wird|werden|kein|keine|sauf|però|senza|tranne|zonder|geen|behalve|bez|oprócz|utan|uden|kecuali|tapi|non|brakuje|nadal|ještě|chybí|není|saknas|fortfarande|stadig|vielä|puuttuu|még|hiányzik|încă|lipsește|masih|tidak|eksik|hâlâ|chưa|thiếu|còn|sind|der|das|fehlt|fehlen|alles|wurde|wurden|auch|mais|pas|sont|les|avec|manque|reste|pero|todavía|aún|está|están|falta|faltan|ainda|não|faltam|ancora|sono|manca|mancano|gli|ma|maar|nog|niet|het|een|zijn|ontbreekt|jeszcze|nie|och|inte|ännu|ikke|endnu|belum|henüz|değil)(?=\s|$)/iu;

/**
 * A quotation: a markdown blockquote line, or text in double, typographic or corner quotes, or in
 * single quotes that are not apostrophes.
 */
const QUOTED =
	/^[ \t]*>.*$|"[^"\n]*"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»|「[^」\n]*」|(?<![\p{L}\p{N}])'[^'\n]*'(?![\p{L}\p{N}])/gmu;

/**
 * The words of a summary, without its code and quotations: `code spans`, quoted messages (an error
 * "Datei nicht gefunden" is the program's words, not the summary's), URLs,
 * paths and file names, identifiers (camelCase, snake_case, `user.名前`, `合計()`), flags, numbers
 * and versions. Terse developer summaries are mostly code ("Renamed getUser → fetchUser across 12
 * files; build OK."), and code is in no language.
 */
export function proseWords(summary: string): string[] {
	return summary
		.replace(/`[^`]*`/g, " ")
		.replace(QUOTED, " ")
		.replace(/\b[a-z][a-z+.-]*:\/\/\S+/gi, " ")
		.split(/\s+/)
		.map((token) => token.replace(/^[("'[{<]+|[)"'\]}>.,;:!?]+$/g, ""))
		.filter(
			(token) =>
				/\p{L}/u.test(token) && !/[/\\_=@#$\d(]|[\p{L}\p{N}]\.[\p{L}\p{N}]|^[-+]|\p{Ll}\p{Lu}/u.test(token),
		);
}

/**
 * Whether the summary is text the English phrase list can judge, read from its words without the
 * code: no everyday word of another language nor words in another script, and two or more common
 * English words (past-tense "-ed" words count), or one in a short note ("Done.", "Bumped deps:
 * react, vite. Build OK.").
 * A summary with no words at all (only code, numbers and symbols) has nothing to miss. Anything
 * else is not (then the model is asked to state its open items, which works in every language).
 */
export function readableAsEnglish(summary: string): boolean {
	const words = proseWords(summary);
	if (words.length === 0) return true;
	const prose = words.join(" ");
	// Another language's everyday word, or words in another script ("но тесты ещё", "测试还没写").
	if (FOREIGN.test(prose) || words.some((word) => /\p{L}{2}/u.test(word.replace(/\p{Script=Latin}/gu, ""))))
		return false;
	const listed: readonly string[] = prose.match(ENGLISH) ?? [];
	const pastTense = words.filter((word) => /^[a-z]{3,}ed$/i.test(word) && !listed.includes(word));
	const english = listed.length + pastTense.length;
	return english >= 2 || (english === 1 && words.length < 8);
}

/** Why a completion is asked about, if it is (the most specific first). */
function doubt(summary: string, facts: CompletionFacts): { phrase: string; reason: string } | undefined {
	if (facts.batchProblem)
		return {
			phrase: facts.batchProblem,
			reason: `Not completed yet: ${facts.batchProblem} in the same batch as goal_complete. Check that result first; if every requirement is met, call goal_complete again and it will be accepted.`,
		};
	if (!facts.toolWork)
		return {
			phrase: "no tool work yet",
			reason:
				"Not completed yet: no tool has run for this goal without failing, so nothing shows the work is done. Do the work and verify it, or, if nothing needed doing, call goal_complete again and it will be accepted.",
		};
	const open = facts.openItems?.filter((item) => item.trim().length > 0) ?? [];
	if (open.length > 0) {
		const listed = open.slice(0, 3).join("; ");
		return {
			phrase: listed,
			reason: `Not completed yet: open_items lists ${open.length} open item(s) ("${cutText(listed, 160)}"). Finish them, or if every requirement is met call goal_complete again with open_items empty.`,
		};
	}
	const unchecked = UNCHECKED.exec(summary)?.[0]?.trim();
	const phrase = unchecked ?? unfinishedAdmission(summary);
	if (phrase !== undefined)
		return {
			phrase,
			reason: `Not completed yet: the summary says "${cutText(phrase, 80)}". If every requirement is met, call goal_complete again and it will be accepted; otherwise keep working.`,
		};
	if (facts.openItems === undefined && !readableAsEnglish(summary))
		return {
			phrase: "open items not stated",
			reason:
				"Not completed yet: state what is still open. Call goal_complete again with open_items listing anything unfinished (an empty list when every requirement is met).",
		};
	return undefined;
}

/**
 * Decides one goal_complete call: accept, or ask once (per goal id; `asked` is updated) when there
 * was no tool work in the goal, a command of the same batch failed, the model lists open items,
 * the summary has unchecked task items or admits unfinished work, or it is in a language the
 * phrase list cannot read and gives no open_items. The next call is always accepted.
 */
export function decideCompletion(
	summary: string,
	goalId: string,
	asked: Set<string>,
	facts: CompletionFacts = { toolWork: true },
): CompletionDecision {
	if (asked.has(goalId)) return { accept: true };
	const found = doubt(summary, facts);
	if (found === undefined) return { accept: true };
	asked.add(goalId);
	return { accept: false, ...found };
}
