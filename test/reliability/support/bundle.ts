/**
 * Bundles a TypeScript entry of this suite (and the packages' sources it imports, through the
 * `@pi-lifecycle/source` condition) into an ES module a plain `node` child process can run. Pi's
 * host packages stay external and resolve from the repository's node_modules. The output goes to
 * test/reliability/.artifacts/ (ignored by git, Biome and vitest like every `.artifacts` dir).
 */
import { mkdirSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..", "..");

/** The part of esbuild's API used here. */
interface EsbuildApi {
	build(options: Record<string, unknown>): Promise<unknown>;
}

/** esbuild, resolved through tsup (a root devDependency) so nothing new is installed. */
async function esbuild(): Promise<EsbuildApi> {
	const tsup = realpathSync(join(repo, "node_modules", "tsup", "package.json"));
	const path = createRequire(tsup).resolve("esbuild");
	return (await import(pathToFileURL(path).href)) as EsbuildApi;
}

/** Bundles `entry` and returns the output file. */
export async function bundle(entry: string): Promise<string> {
	const outdir = join(here, "..", ".artifacts");
	mkdirSync(outdir, { recursive: true });
	const outfile = join(outdir, `${basename(entry, ".ts")}.mjs`);
	const { build } = await esbuild();
	await build({
		entryPoints: [entry],
		outfile,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node22",
		conditions: ["@pi-lifecycle/source"],
		external: ["@earendil-works/*", "typebox", "jscpd", "jscpd/*"],
		logLevel: "silent",
		banner: {
			js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
		},
	});
	return outfile;
}
