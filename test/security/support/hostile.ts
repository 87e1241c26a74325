/**
 * Hostile repositories for the security suite (docs/security.md): every way we found for a
 * repository to make git or jscpd run something, each leaving its own marker file when it runs.
 */
import { execFileSync } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	readdirSync,
	realpathSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { createScriptedSession, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import type { JscpdController } from "../../../packages/pi-jscpd/src/adapters/controller.js";
import { allExtensions, tempDir } from "../../reliability/support/extensions.js";

/** Writes a file, creating its directory. */
export function put(path: string, text: string, mode?: number): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
	if (mode !== undefined) chmodSync(path, mode);
}

/** A block jscpd 5.3.2 reports as a duplicate when it appears twice. */
export function duplicated(name: string): string {
	const lines = [`export function ${name}(items: number[], factor: number): number {`, "\tlet total = 0;"];
	for (let i = 0; i < 8; i++)
		lines.push(`\ttotal += items[${i}] * factor + ${i} - (items.length % ${i + 2});`);
	lines.push("\treturn total;", "}", "");
	return lines.join("\n");
}

/** A sandbox: `root` (the project), `outside` (a sibling the project must not reach), `markers`. */
export interface Sandbox {
	readonly base: string;
	readonly root: string;
	readonly outside: string;
	readonly markers: string;
}

export function sandbox(prefix: string): Sandbox {
	const base = realpathSync(tempDir(prefix));
	const root = join(base, "project");
	const outside = join(base, "outside");
	const markers = join(base, "markers");
	for (const dir of [root, outside, markers]) mkdirSync(dir, { recursive: true });
	return { base, root, outside, markers };
}

/** Marker files that appeared. */
export function markersIn(dir: string): string[] {
	return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function git(cwd: string, ...args: string[]): void {
	execFileSync("git", args, {
		cwd,
		stdio: "ignore",
		env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
	});
}

/**
 * The config keys we found that make git run a program (git-config(1), gitattributes(5),
 * githooks(5)); each writes `<markers>/<name>`. `git status` reaches several of them directly
 * (fsmonitor, filters, index hooks, includes); the others are what a careless `git diff`, `git log`,
 * `git fetch` or `git commit` would run, so an extension that runs any git command must be immune.
 */
export function gitVectors(markers: string): Record<string, string> {
	const touch = (name: string) => `touch '${join(markers, name)}'; false`;
	return {
		"core.fsmonitor": touch("fsmonitor"),
		"core.pager": touch("pager"),
		"pager.status": touch("pager-status"),
		"core.editor": touch("editor"),
		"sequence.editor": touch("sequence-editor"),
		"core.askPass": touch("askpass"),
		"core.sshCommand": touch("ssh-command"),
		"core.alternateRefsCommand": touch("alternate-refs"),
		"credential.helper": `!${touch("credential-helper")}`,
		"gpg.program": join(markers, "..", "tools", "gpg"),
		"diff.external": touch("diff-external"),
		"diff.evil.textconv": touch("textconv"),
		"diff.evil.command": touch("diff-command"),
		"merge.evil.driver": touch("merge-driver"),
		"filter.evil.clean": touch("filter-clean"),
		"filter.evil.smudge": touch("filter-smudge"),
		"filter.evil.process": touch("filter-process"),
		"filter.evil.required": "true",
		"core.hooksPath": join(markers, "..", "hooks"),
		"uploadpack.packObjectsHook": touch("pack-objects-hook"),
		"remote.origin.url": "ext::sh -c touch% /tmp/never",
		"remote.origin.receivepack": touch("receivepack"),
		"remote.origin.uploadpack": touch("uploadpack"),
		"protocol.ext.allow": "always",
		"include.path": join(markers, "..", "included.gitconfig"),
		"includeIf.gitdir:/.path": join(markers, "..", "included-if.gitconfig"),
		"alias.status": `!${touch("alias")}`,
		"web.browser": touch("browser"),
		"sendemail.smtpServer": touch("smtp"),
	};
}

/**
 * Builds a hostile git repository at `root`: every vector of {@link gitVectors}, hooks for every
 * name git may run, attributes that route all files through the filter/diff/merge drivers, and
 * included config files that set `core.fsmonitor` again. One committed file, one modified file
 * and one untracked file, so `git status` has work to do.
 */
export function hostileGitRepo(s: Sandbox): void {
	git(s.root, "init", "-q");
	git(s.root, "config", "user.email", "a@b.c");
	git(s.root, "config", "user.name", "x");
	put(join(s.root, "src", "a.ts"), duplicated("original"));
	git(s.root, "add", ".");
	git(s.root, "commit", "-qm", "init");
	for (const [key, value] of Object.entries(gitVectors(s.markers))) git(s.root, "config", key, value);
	const touch = (name: string) => `#!/bin/sh\ntouch '${join(s.markers, name)}'\n`;
	put(join(s.base, "tools", "gpg"), touch("gpg-program"), 0o755);
	for (const hook of [
		"post-index-change",
		"pre-commit",
		"post-checkout",
		"post-merge",
		"reference-transaction",
		"fsmonitor-watchman",
		"pre-auto-gc",
	]) {
		put(join(s.base, "hooks", hook), touch(`hook-${hook}`), 0o755);
		put(join(s.root, ".git", "hooks", hook), touch(`git-dir-hook-${hook}`), 0o755);
	}
	put(
		join(s.base, "included.gitconfig"),
		`[core]\n\tfsmonitor = touch '${join(s.markers, "include-path")}'; false\n`,
	);
	put(
		join(s.base, "included-if.gitconfig"),
		`[core]\n\tfsmonitor = touch '${join(s.markers, "include-if")}'; false\n`,
	);
	put(join(s.root, ".gitattributes"), "* filter=evil diff=evil merge=evil\n");
	// Changes for git status to look at: a modified tracked file and an untracked one.
	put(join(s.root, "src", "a.ts"), `${duplicated("original")}// edited\n`);
	put(join(s.root, "src", "b.ts"), duplicated("copy"));
}

/** Runs `git status` as a user would, to prove the hostile repository's vectors are live. */
export function userGitStatus(root: string): void {
	try {
		execFileSync("git", ["status", "--porcelain"], { cwd: root, stdio: "ignore", timeout: 20_000 });
	} catch {
		// A failing filter makes git status fail: the marker is what counts.
	}
}

/** A symlink inside the project pointing outside it. */
export function escapeLink(s: Sandbox, linkPath: string): void {
	mkdirSync(dirname(join(s.root, linkPath)), { recursive: true });
	symlinkSync(s.outside, join(s.root, linkPath));
}

/**
 * Pi's real session in `root` with pi-jscpd alone (a fresh agent dir), the project trusted or not;
 * resolves once pi-jscpd has loaded, with its controller.
 */
export async function openJscpdSession(
	root: string,
	trusted: boolean,
): Promise<{ harness: ScriptedSession; controller: JscpdController }> {
	const agentDir = tempDir("pi-security-agent-");
	let controller: JscpdController | undefined;
	const harness = await createScriptedSession({
		cwd: root,
		projectTrusted: trusted,
		extensions: allExtensions({
			agentDir,
			order: ["pi-jscpd"],
			jscpd: {
				onController: (c) => {
					controller = c;
				},
			},
		}),
	});
	const loaded = controller as JscpdController | undefined;
	if (!loaded) throw new Error("pi-jscpd did not load");
	return { harness, controller: loaded };
}
