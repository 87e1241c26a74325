/**
 * The public process helpers that `runProcess` is built from, used directly as an extension would:
 * the output bound, the containment checks, the environment allowlist and the default registry.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	BoundedOutput,
	defaultRegistry,
	ELISION_MARKER,
	ENV_ALLOWLIST,
	isWithin,
	minimalEnv,
	ProcessRegistry,
	realPath,
	realPathOrParent,
} from "../src/index.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("BoundedOutput keeps the head and the tail and says when it dropped bytes", () => {
	it("keeps a short stream whole and untruncated", () => {
		const out = new BoundedOutput(1024);
		out.push(Buffer.from("hello\n"));
		expect(out.capture()).toEqual({ text: "hello\n", truncated: false });
	});

	it("marks the elision between the first and the last lines of a long stream", () => {
		const out = new BoundedOutput(800);
		out.push(Buffer.from("first line\n"));
		for (let i = 0; i < 200; i++) out.push(Buffer.from(`line ${i}\n`));
		out.push(Buffer.from("final error\n"));
		const { text, truncated } = out.capture();
		expect(truncated).toBe(true);
		expect(text.startsWith("first line\n")).toBe(true);
		expect(text).toContain(`\n${ELISION_MARKER}\n`);
		expect(text.endsWith("final error\n")).toBe(true);
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(800 + ELISION_MARKER.length + 2);
	});
});

describe("containment by real path", () => {
	it("isWithin compares the paths as given; realPath and realPathOrParent resolve symlinks first", () => {
		const root = realPath(mkdtempSync(join(tmpdir(), "kit-exports-"))) ?? "";
		dirs.push(root);
		const project = join(root, "project");
		mkdirSync(project);
		symlinkSync(root, join(project, "up"));
		expect(isWithin(project, join(project, "up", "secret"))).toBe(true);
		expect(realPath(join(project, "up"))).toBe(root);
		expect(realPath(join(project, "missing"))).toBeUndefined();
		const resolved = realPathOrParent(join(project, "up", "not-yet", "file"));
		expect(resolved).toBe(join(root, "not-yet", "file"));
		expect(isWithin(project, resolved ?? "")).toBe(false);
	});
});

describe("the environment a child inherits", () => {
	it("minimalEnv keeps ENV_ALLOWLIST and LC_* and drops everything else", () => {
		const env = minimalEnv(
			{ HOME: "/home/u", LC_ALL: "C", NODE_OPTIONS: "--require evil", API_KEY: "k", PATH: "/usr/bin" },
			{ root: "/nowhere", trusted: false },
		);
		expect(ENV_ALLOWLIST).toContain("HOME");
		expect(env).toEqual({ HOME: "/home/u", LC_ALL: "C", PATH: "/usr/bin" });
	});
});

describe("defaultRegistry", () => {
	it("is the registry requests without one use, open and empty when nothing runs", () => {
		expect(defaultRegistry).toBeInstanceOf(ProcessRegistry);
		expect(defaultRegistry.closed).toBe(false);
		expect(defaultRegistry.size).toBe(0);
	});
});
