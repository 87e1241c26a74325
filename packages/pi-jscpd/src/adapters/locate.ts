/**
 * Finds a usable jscpd 5.x: a project-local one (`node_modules/.bin/jscpd` from the project upwards,
 * only when Pi trusts the project), then one on PATH (untrusted: only absolute PATH entries outside
 * the project), then the pinned dependency (its native binary, resolved from pi-jscpd's own install).
 * Each candidate is probed with `--version` through the serialised runner; the first 5.x wins. The
 * kit's runProcess checks the chosen executable against the trust rule again when it runs.
 */

import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { nativeExecutableName, safePathEntries } from "@pi-lifecycle/lifecycle-kit";
import type { ProcessRunner } from "./runner.js";

/** Where an executable came from. */
export type ExecutableSource = "project" | "path" | "pinned" | "override";

/** A candidate executable. */
export interface Candidate {
	/** Absolute path. */
	readonly command: string;
	/** Where it was found. */
	readonly source: ExecutableSource;
}

/** The probed capability. */
export type Capability =
	| {
			readonly status: "available";
			readonly command: string;
			readonly source: ExecutableSource;
			readonly version: string;
	  }
	| { readonly status: "unavailable"; readonly reason: string };

function isExecutable(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** The pinned jscpd's native binary, or its node launcher, or undefined. */
export function pinnedCandidate(): Candidate | undefined {
	try {
		const require = createRequire(import.meta.url);
		const pkg = require.resolve("jscpd/package.json");
		const fromJscpd = createRequire(pkg);
		const map = fromJscpd("./platform-map.js") as {
			getPlatformKey(): string | undefined;
			PLATFORM_MAP: Record<string, { packageName: string }>;
		};
		const key = map.getPlatformKey();
		const entry = key ? map.PLATFORM_MAP[key] : undefined;
		if (entry) {
			const binary = join(
				dirname(fromJscpd.resolve(`${entry.packageName}/package.json`)),
				"bin",
				nativeExecutableName("jscpd"),
			);
			if (isExecutable(binary)) return { command: binary, source: "pinned" };
		}
	} catch {
		// Not installed or no binary for this platform.
	}
	return undefined;
}

/** Candidates in preference order (pure apart from file checks). */
export function candidates(options: {
	/** Canonical project root. */
	readonly root: string;
	/** Whether project-local executables may run. */
	readonly projectTrusted: boolean;
	/** PATH to search. */
	readonly pathEnv: string | undefined;
	/** Test/user override: only this executable is considered. */
	readonly override?: string;
	/** Whether to consider the pinned dependency. */
	readonly includePinned?: boolean;
}): Candidate[] {
	if (options.override) return [{ command: options.override, source: "override" }];
	const found: Candidate[] = [];
	if (options.projectTrusted) {
		let dir = options.root;
		for (let depth = 0; depth < 64; depth++) {
			const bin = join(dir, "node_modules", ".bin", "jscpd");
			if (isExecutable(bin)) found.push({ command: bin, source: "project" });
			const parent = dirname(dir);
			if (parent === dir) break;
			dir = parent;
		}
	}
	for (const entry of safePathEntries(options.pathEnv, {
		root: options.root,
		trusted: options.projectTrusted,
	})) {
		const bin = join(entry, "jscpd");
		if (isExecutable(bin) && !found.some((c) => c.command === bin))
			found.push({ command: bin, source: "path" });
	}
	if (options.includePinned !== false) {
		const pinned = pinnedCandidate();
		if (pinned) found.push(pinned);
	}
	return found;
}

/** Parses `jscpd --version` output; returns the version when it is 5.x. */
export function parseVersion(stdout: string): string | undefined {
	const match = /(\d+)\.(\d+)\.(\d+)/.exec(stdout);
	return match && match[1] === "5" ? match[0] : undefined;
}

/** Probes candidates in order; the first jscpd 5.x wins. */
export async function probeCapability(
	runner: ProcessRunner,
	list: readonly Candidate[],
	options: { readonly cwd?: string; readonly signal?: AbortSignal; readonly timeoutMs?: number },
): Promise<Capability> {
	const rejected: string[] = [];
	for (const candidate of list) {
		const outcome = await runner.run({
			command: candidate.command,
			bundled: candidate.source === "pinned",
			args: ["--version"],
			timeoutMs: options.timeoutMs ?? 10_000,
			signal: options.signal,
		});
		if (outcome.status === "cancelled") return { status: "unavailable", reason: "probe cancelled" };
		const version = outcome.status === "ok" ? parseVersion(outcome.stdout) : undefined;
		if (version)
			return { status: "available", command: candidate.command, source: candidate.source, version };
		rejected.push(`${candidate.command} (${outcome.status === "ok" ? "not jscpd 5.x" : outcome.status})`);
	}
	return {
		status: "unavailable",
		reason: rejected.length > 0 ? `no usable jscpd 5.x: ${rejected.join(", ")}` : "jscpd was not found",
	};
}
