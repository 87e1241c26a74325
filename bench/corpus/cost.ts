/**
 * Cost of the clone kinds: plain jscpd 5.3.2 runs with pi-jscpd's report options, exact only vs the
 * default kinds (`--similarity 0.7`), alternating, on the bench's generated TypeScript trees and on
 * the hand-written real code of real-codebase.ts. The check's cost is dominated by this run (the
 * report parse and selection are O(report)). Usage: `node corpus/cost.ts <out.json> [files…]`
 * (default 2000; 20000 takes several minutes per run on 2 cores).
 */
import { rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { typescriptTree } from "../lib/project.ts";
import { runJscpd } from "./evaluate.ts";
import { packageDir } from "./functions.ts";
import { CODEBASES } from "./real-codebase.ts";

const DEFAULT_ARGS = ["--similarity", "0.7"];

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] as number;
}

function compare(workspace: string, name: string, paths: string[], cwd: string, repeats: number) {
	const exact: number[] = [];
	const kinds: number[] = [];
	let clones = { exact: 0, kinds: 0 };
	for (let i = 0; i < repeats; i++) {
		const a = runJscpd(workspace, [], paths, cwd);
		const b = runJscpd(workspace, DEFAULT_ARGS, paths, cwd);
		exact.push(a.ms);
		kinds.push(b.ms);
		clones = { exact: a.duplicates.length, kinds: b.duplicates.length };
	}
	const result = {
		name,
		exactMs: Math.round(median(exact)),
		kindsMs: Math.round(median(kinds)),
		ratio: Math.round((median(kinds) / median(exact)) * 100) / 100,
		clones,
		repeats,
	};
	console.log(JSON.stringify(result));
	return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [outFile, ...sizes] = process.argv.slice(2);
	if (!outFile) throw new Error("usage: node corpus/cost.ts <out.json> [files…]");
	const workspace = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
	const results = [];
	for (const base of CODEBASES) {
		const paths = base.parts.map((part) => packageDir(workspace, part.prefix, part.dir) as string);
		results.push(compare(workspace, base.name, paths, resolve(workspace, "node_modules/.pnpm"), 3));
	}
	for (const files of (sizes.length > 0 ? sizes : ["2000"]).map(Number)) {
		const tree = typescriptTree(files);
		try {
			results.push(compare(workspace, `bench tree, ${files} files`, ["."], tree, files > 5_000 ? 1 : 2));
		} finally {
			rmSync(tree, { recursive: true, force: true });
		}
	}
	writeFileSync(outFile, `${JSON.stringify(results, null, "\t")}\n`);
}
