/**
 * Bounded capture of a child's stdout or stderr: memory stays bounded by the limit plus one chunk,
 * whatever the stream's length, and dropping bytes is never silent (`truncated`, and a marker in
 * the text where they were dropped).
 */

/** Marks the bytes {@link BoundedOutput} dropped between the head and the tail it keeps. */
export const ELISION_MARKER = "[… output elided …]";

/** What a bounded capture kept. */
export interface CapturedOutput {
	/** The kept text (an {@link ELISION_MARKER} line stands where bytes were dropped). */
	readonly text: string;
	/** Whether bytes were dropped: a caller parsing `text` must treat it as incomplete. */
	readonly truncated: boolean;
}

/**
 * Keeps at most `limit` bytes of a stream: its first bytes (an eighth, at most 8 KiB) and its last
 * bytes (the rest), so a crash that prints a lot still shows how it started and its final error.
 */
export class BoundedOutput {
	readonly #headLimit: number;
	readonly #tailLimit: number;
	readonly #head: Buffer[] = [];
	#headSize = 0;
	#tail: Buffer[] = [];
	#tailSize = 0;
	/** Bytes dropped between head and tail. */
	#dropped = 0;

	constructor(limit: number) {
		const total = Math.max(0, Math.floor(limit));
		this.#headLimit = Math.min(8 * 1024, Math.floor(total / 8));
		this.#tailLimit = total - this.#headLimit;
	}

	/** Whether bytes were dropped. */
	get truncated(): boolean {
		return this.#dropped > 0 || this.#tailSize > this.#tailLimit;
	}

	/** Appends one chunk. */
	push(chunk: Buffer): void {
		let rest = chunk;
		const room = this.#headLimit - this.#headSize;
		if (room > 0) {
			const kept = rest.length > room ? rest.subarray(0, room) : rest;
			this.#head.push(kept);
			this.#headSize += kept.length;
			rest = rest.subarray(kept.length);
		}
		if (rest.length === 0) return;
		this.#tail.push(rest);
		this.#tailSize += rest.length;
		// Drop whole chunks from the front while the rest still fills the tail.
		let drop = 0;
		while (
			drop < this.#tail.length - 1 &&
			this.#tailSize - (this.#tail[drop]?.length ?? 0) >= this.#tailLimit
		) {
			const size = this.#tail[drop]?.length ?? 0;
			this.#tailSize -= size;
			this.#dropped += size;
			drop++;
		}
		if (drop > 0) this.#tail = this.#tail.slice(drop);
	}

	/** The kept text; an elision marker stands where bytes were dropped (the tail starts on a line). */
	text(): string {
		let tail = Buffer.concat(this.#tail);
		if (tail.length > this.#tailLimit) {
			this.#dropped += tail.length - this.#tailLimit;
			tail = tail.subarray(tail.length - this.#tailLimit);
			this.#tail = [tail];
			this.#tailSize = tail.length;
		}
		const head = Buffer.concat(this.#head).toString("utf8");
		if (this.#dropped === 0) return head + tail.toString("utf8");
		let tailText = tail.toString("utf8");
		const newline = tailText.indexOf("\n");
		if (newline >= 0 && newline < tailText.length - 1) tailText = tailText.slice(newline + 1);
		return `${head}\n${ELISION_MARKER}\n${tailText}`;
	}

	/** The capture as a value: text plus the truncation flag. */
	capture(): CapturedOutput {
		const text = this.text();
		return { text, truncated: this.#dropped > 0 };
	}
}
