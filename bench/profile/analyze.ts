/**
 * Self time from V8 .cpuprofile files (drive.ts cpuprof), grouped by package and by function,
 * per variant, normalised per turn (each profile covers 200 turns). With two variants, the
 * difference B − A per group and per function is listed, largest first.
 *
 *   node profile/analyze.ts <dir> [--top 30] [--a none] [--b all] [--detail "index.js:1035"] [--turns 200]
 *
 * It also lists the inclusive time of our code per outermost frame of ours (the handler Pi called),
 * and with --detail the leaf functions under the frames whose key contains the given text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface Node {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface Profile {
	nodes: Node[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
	endTime: number;
}

/** Turns each profile covers: 200 for drive.ts cpuprof; `--turns N` for others (e.g. goal-active-child.ts). */
const turnsArg = process.argv.indexOf("--turns");
const TURNS = turnsArg >= 0 ? Number(process.argv[turnsArg + 1]) : 200;

/** The package (or runtime part) a script URL belongs to. */
export function groupOf(url: string, fn: string): string {
	if (!url) {
		if (fn === "(garbage collector)") return "gc";
		if (fn === "(idle)") return "idle";
		if (fn === "(program)") return "program";
		return `native:${fn || "(anonymous)"}`;
	}
	if (url.startsWith("node:")) return "node-internals";
	const scoped = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g);
	if (scoped) {
		const last = scoped[scoped.length - 1] as string;
		const name = last.replace(/^node_modules\//, "").replace(/\/$/, "");
		if (name.startsWith("@pi-lifecycle/")) return `ours:${name.slice(14)}`;
		return name.replace("@earendil-works/", "");
	}
	const own = url.match(/\/packages\/([^/]+)\//);
	if (own) return `ours:${own[1]}`;
	if (url.includes("/bench/")) return "bench";
	return "other";
}

function shortUrl(url: string): string {
	const i = url.lastIndexOf("/dist/");
	if (i >= 0) return url.slice(url.lastIndexOf("/", url.lastIndexOf("/", i - 1) - 1) + 1);
	return url.split("/").slice(-2).join("/");
}

/**
 * Inclusive time (µs) of our code: each sample whose stack passes through one of our packages is
 * attributed to the OUTERMOST such frame (the handler or callback Pi called), with everything it
 * called (Pi getters, session walks, token estimates) included.
 */
export function oursInclusive(
	profile: Profile,
	detail?: string,
	leaves?: Map<string, number>,
): Map<string, number> {
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const entryOf = new Map<number, string | null>();
	const entry = (id: number): string | null => {
		const known = entryOf.get(id);
		if (known !== undefined) return known;
		let found: string | null = null;
		for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
			const { functionName, url, lineNumber } = (byId.get(cur) as Node).callFrame;
			if (groupOf(url, functionName).startsWith("ours:"))
				found = `${groupOf(url, functionName)} ${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
		}
		entryOf.set(id, found);
		return found;
	};
	const out = new Map<string, number>();
	for (let i = 0; i < profile.samples.length; i++) {
		const key = entry(profile.samples[i] as number);
		if (!key) continue;
		out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
		if (detail && leaves && key.includes(detail)) {
			const { functionName, url, lineNumber } = (byId.get(profile.samples[i] as number) as Node).callFrame;
			const leaf = `${groupOf(url, functionName)} ${functionName || "(anonymous)"} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ""}`;
			leaves.set(leaf, (leaves.get(leaf) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
		}
	}
	return out;
}

/** Self time (µs) per group and per function of one profile. */
export function selfTimes(profile: Profile): {
	groups: Map<string, number>;
	fns: Map<string, number>;
	total: number;
} {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const self = new Map<number, number>();
	// timeDeltas[i] is the time before sample i; attribute the gap after each sample to it.
	for (let i = 0; i < profile.samples.length; i++) {
		const dt = profile.timeDeltas[i + 1] ?? 0;
		const id = profile.samples[i] as number;
		self.set(id, (self.get(id) ?? 0) + dt);
	}
	const groups = new Map<string, number>();
	const fns = new Map<string, number>();
	let total = 0;
	for (const [id, us] of self) {
		const node = byId.get(id) as Node;
		const { functionName, url, lineNumber } = node.callFrame;
		const group = groupOf(url, functionName);
		groups.set(group, (groups.get(group) ?? 0) + us);
		const key = `${group} ${functionName || "(anonymous)"} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ""}`;
		fns.set(key, (fns.get(key) ?? 0) + us);
		total += us;
	}
	return { groups, fns, total };
}

function add(into: Map<string, number>, from: Map<string, number>, scale: number) {
	for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v * scale);
}

/** Mean µs per turn per group/function over the profiles of one variant. */
export function variantTimes(files: string[], detail?: string) {
	const leaves = new Map<string, number>();
	const groups = new Map<string, number>();
	const fns = new Map<string, number>();
	const inclusive = new Map<string, number>();
	let total = 0;
	for (const f of files) {
		const profile = JSON.parse(readFileSync(f, "utf8")) as Profile;
		const fileLeaves = new Map<string, number>();
		add(inclusive, oursInclusive(profile, detail, fileLeaves), 1 / (files.length * TURNS));
		add(leaves, fileLeaves, 1 / (files.length * TURNS));
		const t = selfTimes(profile);
		add(groups, t.groups, 1 / (files.length * TURNS));
		add(fns, t.fns, 1 / (files.length * TURNS));
		total += t.total / (files.length * TURNS);
	}
	return { groups, fns, total, inclusive, leaves };
}

if (import.meta.main) {
	const dir = process.argv[2] ?? join(import.meta.dirname, "out");
	const arg = (name: string, fallback: string) => {
		const i = process.argv.indexOf(name);
		return i >= 0 ? (process.argv[i + 1] as string) : fallback;
	};
	const top = Number(arg("--top", "30"));
	const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
	const byVariant = new Map<string, string[]>();
	for (const f of files) {
		const variant = f.replace(/\.\d+\.cpuprofile$/, "");
		byVariant.set(variant, [...(byVariant.get(variant) ?? []), join(dir, f)]);
	}
	const a = arg("--a", "none");
	const b = arg("--b", [...byVariant.keys()].find((k) => k !== a) ?? "all");
	const ta = variantTimes(byVariant.get(a) ?? []);
	const detail = process.argv.includes("--detail") ? arg("--detail", "") : undefined;
	const tb = variantTimes(byVariant.get(b) ?? [], detail);
	const fmt = (x: number) => x.toFixed(1).padStart(8);
	console.log(
		`µs of self time per turn (${TURNS} turns per profile); A=${a} (${byVariant.get(a)?.length} profiles), B=${b} (${byVariant.get(b)?.length})`,
	);
	console.log(
		`total sampled (idle included): A ${fmt(ta.total)}  B ${fmt(tb.total)}  B−A ${fmt(tb.total - ta.total)}`,
	);
	console.log("\nby group:            A        B      B−A");
	const groupKeys = new Set([...ta.groups.keys(), ...tb.groups.keys()]);
	const rows = [...groupKeys].map((k) => [k, ta.groups.get(k) ?? 0, tb.groups.get(k) ?? 0] as const);
	rows.sort((x, y) => y[2] - y[1] - (x[2] - x[1]));
	for (const [k, va, vb] of rows)
		if (Math.max(va, vb) >= 1) console.log(`${k.padEnd(18)}${fmt(va)} ${fmt(vb)} ${fmt(vb - va)}`);
	const fnKeys = new Set([...ta.fns.keys(), ...tb.fns.keys()]);
	const frows = [...fnKeys].map((k) => [k, ta.fns.get(k) ?? 0, tb.fns.get(k) ?? 0] as const);
	frows.sort((x, y) => y[2] - y[1] - (x[2] - x[1]));
	console.log(`\ntop ${top} functions by B−A:      A        B      B−A`);
	for (const [k, va, vb] of frows.slice(0, top)) console.log(`${fmt(va)} ${fmt(vb)} ${fmt(vb - va)}  ${k}`);
	const inc = [...tb.inclusive].sort((x, y) => y[1] - x[1]);
	const incTotal = inc.reduce((acc, [, v]) => acc + v, 0);
	console.log(
		`\nB: our code, inclusive µs per turn by outermost frame of ours (total ${incTotal.toFixed(1)}):`,
	);
	for (const [k, v] of inc.slice(0, top)) console.log(`${fmt(v)}  ${k}`);
	if (detail) {
		console.log(`\nB: where the time under frames matching "${detail}" goes (leaf self time, µs per turn):`);
		for (const [k, v] of [...tb.leaves].sort((x, y) => y[1] - x[1]).slice(0, top))
			console.log(`${fmt(v)}  ${k}`);
	}
	console.log(`\ntop ${top} functions in B (self):`);
	frows.sort((x, y) => y[2] - x[2]);
	for (const [k, va, vb] of frows.slice(0, top)) console.log(`${fmt(va)} ${fmt(vb)} ${fmt(vb - va)}  ${k}`);
}
