/**
 * Files a tool generates rather than a person writes (pure). A package manager's lockfile repeats
 * one block per dependency by design, and jscpd reads the `.json` and `.yaml` ones: an install made
 * through bash would otherwise be reported as copied code the model should extract (issue 31: a
 * false finding costs the user more than silence). Such clones are never reported, in any mode.
 */

/** Lockfile names of package managers (matched on the file name, in any folder). */
const LOCKFILE_NAMES: ReadonlySet<string> = new Set([
	"package-lock.json",
	"npm-shrinkwrap.json",
	"pnpm-lock.yaml",
	"yarn.lock",
	"bun.lock",
	"deno.lock",
	"composer.lock",
	"Cargo.lock",
	"Gemfile.lock",
	"poetry.lock",
	"Pipfile.lock",
	"uv.lock",
	"pdm.lock",
	"packages.lock.json",
	"Package.resolved",
	"pubspec.lock",
	"mix.lock",
	"flake.lock",
	"gradle.lockfile",
	"go.sum",
]);

/** Whether a project path (POSIX) is a package manager's lockfile. */
export function isGeneratedFile(path: string): boolean {
	return LOCKFILE_NAMES.has(path.slice(path.lastIndexOf("/") + 1));
}
