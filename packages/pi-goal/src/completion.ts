/**
 * The completion check of `goal_complete` (pure). The tool is authoritative: a summary is never
 * rejected. Only a summary that plainly admits unfinished work (a narrow list of first-person and
 * state phrases, not words like "failing", "TODO" or "bug", which finished work mentions all the
 * time) is asked once for confirmation; the same goal's next call is accepted. The corpus in
 * test/completion-corpus.test.ts measures both error kinds.
 */

/** Phrases that admit unfinished work. Negated forms ("nothing left to do") do not match. */
export const UNFINISHED_ADMISSIONS: readonly RegExp[] = [
	/\b(?:still|yet) (?:need|needs|have|has) to\b/i,
	/\bnot yet\b|\bnot (?:done|finished|complete|working) yet\b/i,
	/\b(?:haven't|have not|hasn't|has not) (?:yet )?(?:been )?(?:run|tested|verified|implemented|finished|completed)\b/i,
	/\b(?:remaining|outstanding|unfinished|open) (?:work|tasks?|items?|steps?|todos?)\s*(?::|include|are)(?!\s*(?:none|n\/a|nothing)\b)/i,
	/(?<!\b(?:nothing|no work|no more|none)(?: is| was)? )\b(?:left|remains?|remaining) to (?:do|implement|fix|finish|be done)\b/i,
	/\b(?:is|are|only|still|remains?) (?:partially|partly|half) (?:done|complete|completed|implemented|working|fixed)\b/i,
	/\bwork in progress\b/i,
	/\b(?:could not|couldn't|was unable to|were unable to|did not|didn't) (?:finish|complete)\b/i,
	/\b(?:tests?|build|ci|suite|checks?) (?:is |are )?still (?:fail|failing|broken|red)\b/i,
	/\bleft (?:a |an |some |several |\d+ )?(?:todos?|fixmes?|stubs?)\b/i,
	/\bran out of (?:time|budget|tokens)\b|\bdid(?: not|n't) get to\b/i,
	/\b(?:is|are|remains?|still) (?:stubbed|a stub|a placeholder)\b/i,
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
	| { readonly accept: false; readonly phrase: string };

/**
 * Decides one goal_complete call: accept, or ask once when the summary admits unfinished work and
 * this goal id was not asked before (`asked` is updated).
 */
export function decideCompletion(summary: string, goalId: string, asked: Set<string>): CompletionDecision {
	if (asked.has(goalId)) return { accept: true };
	const phrase = unfinishedAdmission(summary);
	if (phrase === undefined) return { accept: true };
	asked.add(goalId);
	return { accept: false, phrase };
}
