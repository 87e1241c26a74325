/** Generated project trees for the jscpd figures and the tool-call turns. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temp directory. */
export function tempDir(prefix: string): string {
	return mkdtempSync(join(tmpdir(), `pi-lifecycle-bench-${prefix}-`));
}

/** A small project: one text file the built-in read tool reads every turn. */
export function smallProject(): string {
	const dir = tempDir("small");
	writeFileSync(join(dir, "note.txt"), "A short note the model reads.\n");
	return dir;
}

/** One generated TypeScript module; every 50th repeats a block of another to seed duplicates. */
export function moduleSource(i: number, variant = 0): string {
	const lines = [
		`// module ${i}${variant ? ` (edited ${variant})` : ""}`,
		`export interface Item${i} { id: number; name: string; tags: string[] }`,
	];
	const shared = i % 50 === 0 ? 0 : i;
	for (let f = 0; f < 6; f++) {
		lines.push(
			`export function compute${i}_${f}(items: Item${i}[], limit: number): number {`,
			`\tlet total${shared}_${f} = ${f + variant};`,
			`\tfor (const item of items) {`,
			`\t\tif (item.id > limit + ${f}) total${shared}_${f} += item.tags.length * ${i % 7};`,
			`\t\telse total${shared}_${f} -= item.name.length;`,
			"\t}",
			`\treturn total${shared}_${f};`,
			"}",
		);
	}
	return `${lines.join("\n")}\n`;
}

/** A git-tracked tree of `files` TypeScript files under src/ (10 per directory), committed. */
export function typescriptTree(files: number): string {
	const dir = tempDir("tree");
	for (let i = 0; i < files; i++) {
		const sub = join(dir, "src", `d${Math.floor(i / 10)}`);
		if (i % 10 === 0) mkdirSync(sub, { recursive: true });
		writeFileSync(join(sub, `m${i}.ts`), moduleSource(i));
	}
	// gc.auto=0: a commit of thousands of loose objects would start `git gc` in the background,
	// which competes with the figures measured right after (the walk's lstat calls ran 2× slower).
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "gc.auto=0", ...args], { cwd: dir, stdio: "ignore" });
	git("init", "-q");
	git("-c", "user.email=b@b", "-c", "user.name=bench", "add", "-A");
	git("-c", "user.email=b@b", "-c", "user.name=bench", "commit", "-qm", "tree");
	return dir;
}

/** Path of generated file `i` relative to the tree root. */
export function treeFile(i: number): string {
	return join("src", `d${Math.floor(i / 10)}`, `m${i}.ts`);
}
