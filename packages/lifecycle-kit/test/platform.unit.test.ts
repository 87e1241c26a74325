/**
 * The platform-dependent choices (platform.ts), each branch for Linux, macOS and Windows, whatever
 * machine runs the tests. Linux's answers are the ones the rest of the suite exercises for real.
 */
import { describe, expect, it } from "vitest";
import {
	executableFileNames,
	hasProcessGroups,
	memoryReading,
	nativeExecutableName,
	signalProcessTree,
	watchdogSupport,
} from "../src/platform.js";

describe("platform-dependent choices", () => {
	it("process groups: POSIX children lead their own group; Windows has none", () => {
		expect(hasProcessGroups("linux")).toBe(true);
		expect(hasProcessGroups("darwin")).toBe(true);
		expect(hasProcessGroups("win32")).toBe(false);
	});

	it("a signal reaches the whole group on POSIX (negative pid), the process alone on Windows", () => {
		const sent: [number, NodeJS.Signals][] = [];
		const kill = (pid: number, signal: NodeJS.Signals) => void sent.push([pid, signal]);
		signalProcessTree(42, "SIGTERM", "linux", kill);
		signalProcessTree(42, "SIGKILL", "darwin", kill);
		signalProcessTree(42, "SIGTERM", "win32", kill);
		expect(sent).toEqual([
			[-42, "SIGTERM"],
			[-42, "SIGKILL"],
			[42, "SIGTERM"],
		]);
	});

	it("memory of a group: /proc on Linux, ps on macOS, no reading on Windows", () => {
		expect(memoryReading("linux")).toBe("proc");
		expect(memoryReading("darwin")).toBe("ps");
		expect(memoryReading("win32")).toBe("none");
	});

	it("the parent-death watchdog runs on POSIX; only Linux sweeps by environment marker", () => {
		expect(watchdogSupport("linux")).toEqual({ watchdog: true, environmentSweep: true });
		expect(watchdogSupport("darwin")).toEqual({ watchdog: true, environmentSweep: false });
		expect(watchdogSupport("win32")).toEqual({ watchdog: false, environmentSweep: false });
	});

	it("a bare command is looked up as given on POSIX, with each PATHEXT extension first on Windows", () => {
		expect(executableFileNames("git", "linux", ".EXE")).toEqual(["git"]);
		expect(executableFileNames("git", "win32", ".COM;.EXE;.CMD")).toEqual([
			"git.COM",
			"git.EXE",
			"git.CMD",
			"git",
		]);
		expect(executableFileNames("git.exe", "win32", ".COM;.EXE")).toEqual(["git.exe"]);
		expect(executableFileNames("git", "win32", undefined)).toEqual([
			"git.COM",
			"git.EXE",
			"git.BAT",
			"git.CMD",
			"git",
		]);
	});

	it("a native binary's file name ends in .exe on Windows only", () => {
		expect(nativeExecutableName("jscpd", "linux")).toBe("jscpd");
		expect(nativeExecutableName("jscpd", "darwin")).toBe("jscpd");
		expect(nativeExecutableName("jscpd", "win32")).toBe("jscpd.exe");
		expect(nativeExecutableName("jscpd")).toBe(process.platform === "win32" ? "jscpd.exe" : "jscpd");
	});
});
