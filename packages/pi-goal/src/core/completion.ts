/**
 * The completion check of `goal_complete` (pure). The tool is authoritative: a summary is never
 * rejected. Only a summary that plainly admits unfinished work (a narrow list of first-person and
 * state phrases, not words like "failing", "TODO" or "bug", which finished work mentions all the
 * time) is asked once for confirmation; the same goal's next call is accepted. The corpus in
 * test/completion-corpus.unit.test.ts measures both error kinds.
 */

/** Phrases that admit unfinished work. Negated forms ("nothing left to do") do not match. */
export const UNFINISHED_ADMISSIONS: readonly RegExp[] = [
	/\b(?:still|yet) (?:need|needs|have|has) to\b|\bstill needs? (?:work|fixing|tests?|docs?)\b/i,
	// Present tense or a list item only: "was not yet applied, so I applied it" and a quoted
	// "'not yet implemented' panic" narrate fixed work.
	/\b(?:is|are|has|have|remains?|still) not yet\b|^\s*(?:[-*]\s*)?(?:[\w ]{1,40}:\s*)?not (?:yet|done|written|started)\b|\bnot (?:done|finished|complete|working) yet\b/im,
	/\b(?:haven't|have not|hasn't|has not) (?:yet )?(?:been )?(?:run|tested|verified|implemented|finished|completed)\b/i,
	/(?<!\b(?:no|any|without) )\b(?:remaining|outstanding|unfinished|open) (?:work|tasks?|items?|steps?|todos?)\s*(?::|include|are)(?!\s*(?:none|n\/a|nothing)\b)/i,
	/(?<!\b(?:nothing|no work|no more|none)(?: is| was)? )\b(?:left|remains?|remaining) to (?:do|implement|fix|finish|be done)\b/i,
	/\b(?:is|are|only|still|remains?) (?:partially|partly|half) (?:done|complete|completed|implemented|working|fixed)\b|^\s*(?:[-*]\s*)?(?:partially|partly) (?:done|complete|completed|implemented)\b/im,
	/\b(?:is|are|still|as) (?:a |an )?work in progress\b|^\s*(?:[-*]\s*)?work in progress\b/im,
	/\b(?:could not|couldn't|was unable to|were unable to|wasn't able to|was not able to|did not|didn't) (?:finish|complete|get (?:it|them|the [\w -]{1,30}) to (?:pass|work))\b/i,
	/\b(?:tests?|build|ci|suite|checks?) (?:is |are )?still (?:fail|failing|broken|red)\b/i,
	/\b[1-9]\d* tests? (?:are |is )?(?:still )?(?:failing|fail)\b(?! before)/i,
	/\bleft (?:a |an |some |several |\d+ )?(?:todos?|fixmes?|stubs?)\b|\b(?:is|are) left for (?:a )?(?:follow-?up|later|another)\b/i,
	/\bran out of (?:time|budget|tokens)\b|\bdid(?: not|n't) get to\b|\b(?:did not|didn't) (?:write|add) (?:any )?tests\b/i,
	/\b(?:is|are|remains?|still) (?:stubbed|a stub|a placeholder)\b/i,
	/(?:^\s*(?:[-*]\s*)?|[.!]\s+)(?:next steps?|todo|remaining)\s*:(?!\s*(?:none|n\/a|nothing)\b)/im,
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
