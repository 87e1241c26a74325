/**
 * Everything the kit does differently per operating system, in one place. Each function takes the
 * platform as a parameter (default: this process's), so every branch is unit-tested on any
 * machine. Linux is the reference platform: the whole test suite runs there on every change; macOS
 * and Windows run the unit and session suites in CI.
 *
 * - process groups: POSIX starts each child as the leader of its own group (`detached`), so one
 *   signal reaches the whole tree; Windows has no process groups, a signal reaches the child alone;
 * - resident memory of a group: Linux reads `/proc`, other POSIX systems ask `ps`, Windows has no
 *   reading (the memory bound does not apply there);
 * - the parent-death watchdog: POSIX only; its sweep by environment marker needs `/proc` (Linux);
 * - executable names: Windows looks a bare name up with each `PATHEXT` extension, and native
 *   binaries end in `.exe`.
 *
 * The kit itself joins no paths for display and makes no temp dirs; pi-jscpd spells paths with `/`
 * in its core (project-paths.ts) and puts its temp dirs in `os.tmpdir()` (runner.ts).
 */

/** Whether children get a process group of their own, so one signal reaches the whole tree. */
export function hasProcessGroups(platform: NodeJS.Platform = process.platform): boolean {
	return platform !== "win32";
}

/** How the resident memory of a process group is read. */
export type MemoryReading = "proc" | "ps" | "none";

/** Linux: `/proc`; other POSIX systems: `ps`; Windows: none. */
export function memoryReading(platform: NodeJS.Platform = process.platform): MemoryReading {
	if (platform === "linux") return "proc";
	return platform === "win32" ? "none" : "ps";
}

/** Whether the parent-death watchdog runs, and whether it can also sweep by environment marker. */
export function watchdogSupport(platform: NodeJS.Platform = process.platform): {
	readonly watchdog: boolean;
	readonly environmentSweep: boolean;
} {
	return { watchdog: platform !== "win32", environmentSweep: platform === "linux" };
}

/**
 * Sends `signal` to the process tree of `pid`: its whole group where there are groups (`pid` leads
 * one, see {@link hasProcessGroups}), else the process alone. Throws as `process.kill` does.
 */
export function signalProcessTree(
	pid: number,
	signal: NodeJS.Signals,
	platform: NodeJS.Platform = process.platform,
	kill: (pid: number, signal: NodeJS.Signals) => void = (target, name) => process.kill(target, name),
): void {
	kill(hasProcessGroups(platform) ? -pid : pid, signal);
}

/**
 * The file names a bare command may have in a PATH directory: the name itself on POSIX; on Windows
 * the name with each `PATHEXT` extension first (`git` → `git.COM`, `git.EXE`, …), then as given.
 */
export function executableFileNames(
	command: string,
	platform: NodeJS.Platform = process.platform,
	pathext: string | undefined = process.env.PATHEXT,
): string[] {
	if (platform !== "win32") return [command];
	const extensions = (pathext ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((ext) => ext.startsWith("."));
	const hasExtension = extensions.some((ext) => command.toLowerCase().endsWith(ext.toLowerCase()));
	return hasExtension ? [command] : [...extensions.map((ext) => `${command}${ext}`), command];
}

/** The file name of a native binary: `jscpd` on POSIX, `jscpd.exe` on Windows. */
export function nativeExecutableName(name: string, platform: NodeJS.Platform = process.platform): string {
	return platform === "win32" ? `${name}.exe` : name;
}
