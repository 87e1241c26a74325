/**
 * Writes the labelled clone corpus (deterministic for a seed): one directory per sample with `a`
 * (a real function) and `b` (an agent-style copy of it, or a different real function of the same
 * shape). Labels go to `labels.json`. Usage: `node corpus/generate.ts <outDir> [seed] [perClass]`.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { collectFunctions, type SourceFunction } from "./functions.ts";
import { POSITIVE_CLASSES, rng } from "./mutate.ts";

/** One labelled sample. */
export interface Sample {
	readonly id: string;
	/** Positive class (e.g. `rename+add`) or `negative:<shape>`. */
	readonly label: string;
	readonly positive: boolean;
	/** Sample directory, relative to the corpus root. */
	readonly dir: string;
	readonly a: string;
	readonly b: string;
	/** Where the functions came from. */
	readonly origin: readonly string[];
	/** Lines of `b`. */
	readonly lines: number;
}

function shuffle<T>(list: T[], random: () => number): T[] {
	for (let i = list.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[list[i], list[j]] = [list[j] as T, list[i] as T];
	}
	return list;
}

/** Longest common subsequence ratio of two shapes (0..1). */
function shapeSimilarity(a: readonly string[], b: readonly string[]): number {
	const width = b.length + 1;
	const dp = new Array<number>((a.length + 1) * width).fill(0);
	const at = (i: number, j: number) => dp[i * width + j] ?? 0;
	for (let i = 1; i <= a.length; i++)
		for (let j = 1; j <= b.length; j++)
			dp[i * width + j] = a[i - 1] === b[j - 1] ? at(i - 1, j - 1) + 1 : Math.max(at(i - 1, j), at(i, j - 1));
	return at(a.length, b.length) / Math.max(a.length, b.length);
}

function normalised(text: string): string {
	return text.replace(/\b[A-Za-z_$][\w$]*\b/g, "i").replace(/\s+/g, "");
}

/** Builds the corpus into `out` (replacing it). */
export function generateCorpus(workspace: string, out: string, seed = 21, perClass = 40): Sample[] {
	const random = rng(seed);
	const functions = shuffle(collectFunctions(workspace), random);
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	const samples: Sample[] = [];
	let next = 0;
	const write = (label: string, positive: boolean, a: SourceFunction, bText: string, b: SourceFunction) => {
		const id = String(samples.length).padStart(4, "0");
		const dir = `${id}-${label.replace(/[^a-z+-]/g, "_")}`;
		mkdirSync(join(out, dir));
		const aName = `a${a.ext}`;
		const bName = `b${b.ext}`;
		writeFileSync(join(out, dir, aName), `${a.text}\n`);
		writeFileSync(join(out, dir, bName), `${bText}\n`);
		samples.push({
			id,
			label,
			positive,
			dir,
			a: aName,
			b: bName,
			origin: positive ? [a.file] : [a.file, b.file],
			lines: bText.split("\n").length,
		});
	};
	for (const [label, operators] of Object.entries(POSITIVE_CLASSES)) {
		let made = 0;
		while (made < perClass && next < functions.length) {
			const fn = functions[next++] as SourceFunction;
			let text = fn.text;
			for (const operator of operators) text = operator(text, fn.ext, random);
			if (operators.length > 0 && normalised(text) === normalised(fn.text) && !label.includes("rename"))
				continue;
			if (operators.length > 0 && text === fn.text) continue;
			write(label, true, fn, text, fn);
			made++;
		}
	}
	// Hard negatives: pairs of different functions with the most similar statement shapes.
	const rest = functions.slice(next);
	const used = new Set<number>();
	const negatives = perClass * 8;
	for (let i = 0; i < rest.length && samples.filter((s) => !s.positive).length < negatives; i++) {
		if (used.has(i)) continue;
		const a = rest[i] as SourceFunction;
		let best = -1;
		let bestScore = 0;
		for (let j = i + 1; j < rest.length; j++) {
			const b = rest[j] as SourceFunction;
			if (used.has(j) || b.file === a.file || b.ext !== a.ext) continue;
			if (b.lines * 2 < a.lines || a.lines * 2 < b.lines) continue;
			if (normalised(a.text) === normalised(b.text)) continue;
			const common = a.classes.filter((c) => b.classes.includes(c)).length;
			const score = shapeSimilarity(a.shape, b.shape) + common * 0.25;
			if (score > bestScore) {
				bestScore = score;
				best = j;
			}
		}
		if (best < 0 || bestScore < 0.75) continue;
		used.add(i);
		used.add(best);
		const b = rest[best] as SourceFunction;
		const shape = a.classes.filter((c) => b.classes.includes(c))[0] ?? "shape";
		write(`negative:${shape}`, false, a, b.text, b);
	}
	writeFileSync(join(out, "labels.json"), `${JSON.stringify({ seed, perClass, samples }, null, "\t")}\n`);
	return samples;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [outDir, seed, perClass] = process.argv.slice(2);
	if (!outDir) throw new Error("usage: node corpus/generate.ts <outDir> [seed] [perClass]");
	const workspace = resolve(fileURLToPath(import.meta.url), "../../..");
	const samples = generateCorpus(workspace, resolve(outDir), Number(seed ?? 21), Number(perClass ?? 40));
	const counts: Record<string, number> = {};
	for (const s of samples) counts[s.label] = (counts[s.label] ?? 0) + 1;
	console.log(JSON.stringify(counts));
}
