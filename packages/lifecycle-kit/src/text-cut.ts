/**
 * Cutting text to a length without splitting a character. JavaScript lengths count UTF-16 units: a
 * cut between the two halves of a surrogate pair (an emoji, a rare CJK character) leaves a lone
 * surrogate, which is not valid Unicode; some providers reject a request that carries one (invalid
 * JSON, HTTP 400), on every later request of the window that holds the text. Every bound on text
 * the model or the user reads goes through these.
 */

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text.slice(start, end)` that never splits a surrogate pair: a start inside a pair moves past it,
 * an end inside a pair moves before it, so the result is at most `end - start` units long. Indexes
 * as `String.prototype.slice` takes them (negative counts from the end, out of range is clamped).
 */
export function sliceText(text: string, start: number, end: number = text.length): string {
	const length = text.length;
	const clamp = (index: number) =>
		Math.min(length, Math.max(0, Math.trunc(index < 0 ? length + index : index) || 0));
	let from = clamp(start);
	let to = clamp(end);
	if (
		from > 0 &&
		from < length &&
		isLowSurrogate(text.charCodeAt(from)) &&
		isHighSurrogate(text.charCodeAt(from - 1))
	)
		from++;
	if (
		to > 0 &&
		to < length &&
		isLowSurrogate(text.charCodeAt(to)) &&
		isHighSurrogate(text.charCodeAt(to - 1))
	)
		to--;
	return from >= to ? "" : text.slice(from, to);
}

/** The first `max` UTF-16 units of `text` (all of it when it fits), one fewer when the cut would split a surrogate pair. */
export function cutText(text: string, max: number): string {
	return text.length <= max ? text : sliceText(text, 0, Math.max(0, max));
}

/** The last `max` UTF-16 units of `text` (all of it when it fits), one fewer when the cut would split a surrogate pair. */
export function cutTextEnd(text: string, max: number): string {
	return text.length <= max ? text : sliceText(text, text.length - Math.max(0, max));
}

/** Whether `text` holds a surrogate that is not part of a pair (text a cut left invalid). */
export function hasLoneSurrogate(text: string): boolean {
	return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}
