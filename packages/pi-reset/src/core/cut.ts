/**
 * Cutting text to a length without splitting a character. JavaScript lengths count UTF-16 units:
 * a cut between the two halves of a surrogate pair (an emoji, many CJK extension characters)
 * leaves a lone surrogate, which is not valid Unicode and which some providers reject as invalid
 * JSON, on every later request of the window that carries it.
 */

/** The first `max` UTF-16 units of `text`, or one fewer when the cut would split a surrogate pair. */
export function cutText(text: string, max: number): string {
	if (text.length <= max) return text;
	const last = text.charCodeAt(max - 1);
	const end = max > 0 && last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
	return text.slice(0, Math.max(0, end));
}

/**
 * `text.slice(start, end)` without splitting a character: a start inside a surrogate pair moves
 * past it, an end inside one moves before it (a search snippet's window around a match).
 */
export function sliceText(text: string, start: number, end: number): string {
	const isLow = (at: number) => {
		const code = text.charCodeAt(at);
		return code >= 0xdc00 && code <= 0xdfff;
	};
	const from = start > 0 && start < text.length && isLow(start) ? start + 1 : start;
	const to = end > 0 && end < text.length && isLow(end) ? end - 1 : end;
	return text.slice(from, Math.max(from, to));
}
