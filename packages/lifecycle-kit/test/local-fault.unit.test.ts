/**
 * Issue 33: local faults (a read-only, full or over-quota disk, no permission) are named as what they
 * are, with the next step, never as a provider, key or network problem.
 */
import { describe, expect, it } from "vitest";
import { classifyLocalFault, describeWriteError, LOCAL_FAULT_CODES, piFaultPlaces } from "../src/index.js";

const sessions = { label: "the session folder", dir: "/home/u/.pi/agent/sessions/--work--" };
const agent = { label: "Pi's agent folder", dir: "/home/u/.pi/agent" };

function nodeError(code: string, message: string, path?: string): Error {
	return Object.assign(new Error(message), { code, ...(path ? { path } : {}) });
}

describe("classifyLocalFault", () => {
	it("a read-only session folder, from the text of an assistant error message (how Pi reports a failed session write)", () => {
		const fault = classifyLocalFault(`EROFS: read-only file system, open '${sessions.dir}/2026_x.jsonl'`, [
			sessions,
			agent,
		]);
		expect(fault).toMatchObject({
			code: "EROFS",
			place: "the session folder",
			path: `${sessions.dir}/2026_x.jsonl`,
		});
		expect(fault?.text).toBe(
			`the session folder is read-only (EROFS: ${sessions.dir}/2026_x.jsonl); make it writable, or use a writable one`,
		);
	});

	it("a full disk says to free disk space; a quota says so; the first matching place names the folder", () => {
		const full = classifyLocalFault(
			nodeError("ENOSPC", "ENOSPC: no space left on device, write", `${agent.dir}/x`),
			[sessions, agent],
		);
		expect(full?.text).toBe(
			`the disk holding Pi's agent folder is full (ENOSPC: ${agent.dir}/x); free disk space`,
		);
		expect(classifyLocalFault(nodeError("EDQUOT", "EDQUOT: disk quota exceeded, write"))?.nextStep).toBe(
			"free space or raise the quota",
		);
	});

	it("permission faults on a file count; EACCES/EPERM without a path (a socket) are not a folder's fault", () => {
		expect(
			classifyLocalFault(nodeError("EACCES", "EACCES: permission denied, open '/srv/a'", "/srv/a"))?.text,
		).toBe(
			"a folder on this machine cannot be written (no permission) (EACCES: /srv/a); fix its permissions",
		);
		expect(classifyLocalFault("connect EACCES 10.0.0.1:443")).toBeUndefined();
		expect(classifyLocalFault(nodeError("EPERM", "kill EPERM"))).toBeUndefined();
	});

	it("provider, key and network errors are not local faults; hostile values never throw", () => {
		for (const text of [
			"401 invalid x-api-key",
			"503 overloaded",
			"fetch failed: ECONNRESET",
			"ENOTFOUND api",
		])
			expect(classifyLocalFault(text)).toBeUndefined();
		const hostile = new Proxy(
			{},
			{
				get: () => {
					throw new Error("trap");
				},
			},
		);
		expect(classifyLocalFault(hostile)).toBeUndefined();
		expect(classifyLocalFault(undefined)).toBeUndefined();
		expect(LOCAL_FAULT_CODES).toEqual(["EROFS", "ENOSPC", "EDQUOT", "EACCES", "EPERM"]);
	});

	it("describeWriteError: the fault's line, else the error's own message", () => {
		expect(
			describeWriteError(nodeError("EROFS", "EROFS: read-only file system, open '/x/y'", "/x/y"), [
				{ label: "the x folder", dir: "/x" },
			]),
		).toBe("the x folder is read-only (EROFS: /x/y); make it writable, or use a writable one");
		expect(describeWriteError(new Error("ENOTDIR: not a directory"))).toBe("ENOTDIR: not a directory");
	});

	it("piFaultPlaces: the session folder from the context, Pi's agent folder; a stale context names none", () => {
		const ctx = { sessionManager: { getSessionDir: () => sessions.dir } };
		expect(piFaultPlaces(ctx, agent.dir)).toEqual([sessions, agent]);
		const stale = {
			get sessionManager(): { getSessionDir(): string } {
				throw new Error("stale");
			},
		};
		expect(piFaultPlaces(stale)).toEqual([]);
		expect(piFaultPlaces(undefined, agent.dir)).toEqual([agent]);
	});
});
