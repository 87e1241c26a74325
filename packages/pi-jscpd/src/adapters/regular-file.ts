/**
 * A bounded read of a project file that opens only a regular file: a repository can ship a named
 * pipe (FIFO) or a device under any name, and opening or reading one synchronously would stall
 * Pi's event loop (docs/security.md). The path is checked with stat first, opened without blocking
 * and checked again on the descriptor, so a swap between the two checks cannot block either.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";

/** What {@link readRegularFile} found. */
export type RegularFileRead =
	| { readonly status: "read"; readonly text: string }
	| { readonly status: "too-large"; readonly size: number }
	/** Missing, unreadable, or not a regular file (never opened then). */
	| { readonly status: "unavailable" };

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Reads `path` as UTF-8 when it is a regular file of at most `maxBytes`. Never throws. */
export function readRegularFile(path: string, maxBytes: number): RegularFileRead {
	let fd: number | undefined;
	try {
		const before = statSync(path);
		if (!before.isFile()) return { status: "unavailable" };
		if (before.size > maxBytes) return { status: "too-large", size: before.size };
		fd = openSync(path, OPEN_FLAGS);
		const stat = fstatSync(fd);
		if (!stat.isFile()) return { status: "unavailable" };
		if (stat.size > maxBytes) return { status: "too-large", size: stat.size };
		return { status: "read", text: readFileSync(fd, "utf8") };
	} catch {
		return { status: "unavailable" };
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * The first `headBytes` and last `tailBytes` of `path` as UTF-8 when it is a regular file (never a
 * FIFO or device); undefined otherwise. Never throws.
 */
export function readEnds(
	path: string,
	headBytes: number,
	tailBytes: number,
): { readonly head: string; readonly tail: string } | undefined {
	let fd: number | undefined;
	try {
		if (!statSync(path).isFile()) return undefined;
		fd = openSync(path, OPEN_FLAGS);
		const stat = fstatSync(fd);
		if (!stat.isFile()) return undefined;
		const head = Buffer.alloc(Math.min(headBytes, stat.size));
		readSync(fd, head, 0, head.length, 0);
		const tail = Buffer.alloc(Math.min(tailBytes, stat.size));
		readSync(fd, tail, 0, tail.length, stat.size - tail.length);
		return { head: head.toString("utf8"), tail: tail.toString("utf8") };
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}
