/**
 * Installs the packed tarballs (what `pnpm pack` produces, see scripts/pack-all.mjs) the way Pi
 * installs npm packages: each extension in its own module root with its own copy of
 * lifecycle-kit, so no two extensions share kit module state.
 */
import { execFileSync } from "node:child_process";
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	realpathSync,
	rmSync,
	symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where pack-all writes tarballs. */
export const PACKS_DIR = join(repoRoot, ".artifacts", "packs");

/** The three extensions, by short name. */
export type ExtensionName = "pi-reset" | "pi-goal" | "pi-jscpd";

/** Path of a packed tarball, e.g. `pi-lifecycle-pi-goal-0.1.0.tgz`; throws when missing. */
export function tarballPath(name: ExtensionName | "lifecycle-kit"): string {
	if (!existsSync(PACKS_DIR)) throw new Error(`no packs: run \`pnpm pack:all\` first (${PACKS_DIR})`);
	const file = readdirSync(PACKS_DIR).find(
		(f) => f.startsWith(`pi-lifecycle-${name}-`) && f.endsWith(".tgz"),
	);
	if (!file) throw new Error(`no tarball for ${name} in ${PACKS_DIR}`);
	return join(PACKS_DIR, file);
}

/** Lists the files of a tarball (paths inside `package/`). */
export function tarballFiles(tarball: string): string[] {
	return execFileSync("tar", ["tzf", tarball], { encoding: "utf8" })
		.split("\n")
		.filter(Boolean)
		.map((line) => line.replace(/^package\//, ""));
}

function unpack(tarball: string, into: string): void {
	mkdirSync(into, { recursive: true });
	execFileSync("tar", ["xzf", tarball, "-C", into, "--strip-components=1"]);
}

/**
 * Installs a local fixture package (a third-party extension) in its own module root with its own
 * copy of lifecycle-kit from the kit tarball. Returns its package directory.
 */
export function installFixture(install: PackedInstall, fixtureDir: string, name: string): string {
	const modules = join(install.root, name, "node_modules");
	const packageDir = join(modules, name);
	mkdirSync(modules, { recursive: true });
	cpSync(fixtureDir, packageDir, { recursive: true });
	unpack(tarballPath("lifecycle-kit"), join(modules, "@pi-lifecycle", "lifecycle-kit"));
	return packageDir;
}

/** One installed extension: its package directory for Pi's loader. */
export interface InstalledExtension {
	readonly name: ExtensionName;
	readonly packageDir: string;
}

/** A set of installed extensions; `cleanup` removes them. */
export interface PackedInstall {
	readonly root: string;
	readonly extensions: InstalledExtension[];
	/** Package directories in the requested order (for `extensionPaths`). */
	readonly paths: string[];
	cleanup(): void;
}

/**
 * Installs the named extensions from their tarballs, in order. Third-party-style: a separate root
 * per extension, `node_modules/@pi-lifecycle/<name>` plus its own `lifecycle-kit`; pi-jscpd also
 * gets `jscpd` (linked to the workspace's pinned copy: the registry is not needed).
 */
export function installPacked(names: readonly ExtensionName[]): PackedInstall {
	const root = mkdtempSync(join(tmpdir(), "pi-lifecycle-packed-"));
	const extensions = names.map((name): InstalledExtension => {
		const modules = join(root, name, "node_modules");
		const packageDir = join(modules, "@pi-lifecycle", name);
		unpack(tarballPath(name), packageDir);
		unpack(tarballPath("lifecycle-kit"), join(modules, "@pi-lifecycle", "lifecycle-kit"));
		if (name === "pi-jscpd") {
			const jscpd = realpathSync(join(repoRoot, "packages", "pi-jscpd", "node_modules", "jscpd"));
			symlinkSync(jscpd, join(modules, "jscpd"), "dir");
		}
		return { name, packageDir };
	});
	return {
		root,
		extensions,
		paths: extensions.map((ext) => ext.packageDir),
		cleanup: () => rmSync(root, { recursive: true, force: true }),
	};
}
