/**
 * What each clone kind reports on real code we did not write: jscpd 5.3.2 over package sources
 * installed in this workspace, per detection setting: clones per kind, per 10,000 lines, and every
 * renamed/similar clone that exact mode does not report (side by side, for review) written to a
 * text file. Usage: `node corpus/real-codebase.ts <out.json> <review.txt> [settings…]`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chosenSettings, type RawDuplicate, runJscpd, settingDuplicates } from "./evaluate.ts";
import { packageDir } from "./functions.ts";

/** The codebases: hand-written package sources (61,000 lines) and a generated SDK (62,000 lines). */
export const CODEBASES = [
	{
		name: "hand-written",
		parts: [
			{ prefix: "undici@8.12", dir: "node_modules/undici/lib" },
			{ prefix: "protobufjs@", dir: "node_modules/protobufjs/src" },
			{ prefix: "yaml@2.9.1", dir: "node_modules/yaml/dist" },
		],
	},
	{ name: "generated", parts: [{ prefix: "@anthropic-ai+sdk@", dir: "node_modules/@anthropic-ai/sdk/src" }] },
] as const;

function excerpt(side: RawDuplicate["firstFile"]): string {
	try {
		const lines = readFileSync(side.name, "utf8").split("\n");
		return lines
			.slice(side.start - 1, Math.min(side.end, side.start + 24))
			.map((line) => `    ${line.slice(0, 110)}`)
			.join("\n");
	} catch {
		return "    (unreadable)";
	}
}

function overlaps(a: RawDuplicate, list: readonly RawDuplicate[]): boolean {
	const inside = (x: RawDuplicate["firstFile"], y: RawDuplicate["firstFile"]) =>
		x.name === y.name && x.start <= y.end && y.start <= x.end;
	return list.some(
		(b) =>
			(inside(a.firstFile, b.firstFile) && inside(a.secondFile, b.secondFile)) ||
			(inside(a.firstFile, b.secondFile) && inside(a.secondFile, b.firstFile)),
	);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [outFile, reviewFile, ...names] = process.argv.slice(2);
	if (!outFile || !reviewFile)
		throw new Error("usage: node corpus/real-codebase.ts <out.json> <review.txt> [settings…]");
	const workspace = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
	const wanted = chosenSettings(names);
	const results: unknown[] = [];
	const review: string[] = [];
	for (const base of CODEBASES) {
		const dirs = base.parts.map((part) => packageDir(workspace, part.prefix, part.dir));
		if (dirs.some((dir) => !dir)) throw new Error(`${base.name} is not installed`);
		const paths = dirs as string[];
		const dir = resolve(workspace, "node_modules/.pnpm");
		const exact = runJscpd(workspace, [], paths, dir);
		for (const setting of wanted) {
			const ran = setting.args.length === 0 ? exact : runJscpd(workspace, setting.args, paths, dir);
			const run = { ...ran, duplicates: settingDuplicates(setting, ran.duplicates) };
			const extra = run.duplicates.filter((d) => d.kind !== "exact" && !overlaps(d, exact.duplicates));
			// Whether the setting's exact clones are exact mode's (a lower --min-tokens must not add any).
			const key = (d: RawDuplicate) =>
				[
					d.firstFile.name,
					d.firstFile.start,
					d.firstFile.end,
					d.secondFile.name,
					d.secondFile.start,
					d.secondFile.end,
				].join(":");
			const exactKeys = new Set(exact.duplicates.map(key));
			const runExact = run.duplicates.filter((d) => (d.kind ?? "exact") === "exact");
			const runExactKeys = new Set(runExact.map(key));
			const exactAdded = runExact.filter((d) => !exactKeys.has(key(d))).length;
			const exactLost = exact.duplicates.filter((d) => !runExactKeys.has(key(d))).length;
			const kinds: Record<string, number> = {};
			for (const d of run.duplicates) kinds[d.kind ?? "exact"] = (kinds[d.kind ?? "exact"] ?? 0) + 1;
			const per10k = (n: number) => Math.round((n / run.lines) * 10_000 * 100) / 100;
			results.push({
				codebase: base.name,
				setting: setting.name,
				lines: run.lines,
				clones: run.duplicates.length,
				kinds,
				beyondExact: extra.length,
				beyondExactPer10kLines: per10k(extra.length),
				exactAdded,
				exactLost,
				ms: Math.round(run.ms),
				exactMs: Math.round(exact.ms),
			});
			console.log(
				`${base.name} ${setting.name}: ${run.lines} lines, ${JSON.stringify(kinds)}, beyond exact ${extra.length} (${per10k(extra.length)}/10k lines), ${Math.round(run.ms)} ms vs exact ${Math.round(exact.ms)} ms`,
			);
			extra.forEach((d, i) => {
				review.push(
					`## ${base.name} ${setting.name} #${i + 1} ${d.kind}${d.similarity === undefined ? "" : ` ${d.similarity}`} (${d.lines} lines, ${d.tokens} tokens)`,
					`  ${d.firstFile.name.slice(dir.length + 1)}:${d.firstFile.start}-${d.firstFile.end}`,
					excerpt(d.firstFile),
					`  ${d.secondFile.name.slice(dir.length + 1)}:${d.secondFile.start}-${d.secondFile.end}`,
					excerpt(d.secondFile),
					"",
				);
			});
		}
	}
	writeFileSync(outFile, `${JSON.stringify(results, null, "\t")}\n`);
	writeFileSync(reviewFile, review.join("\n"));
}
