// The seeded reliability files (they take their seed from PI_LIFECYCLE_SEED through the shared plan,
// tools/seed-plan): the root suite's test/reliability/ and each package's core properties. One entry
// per vitest project: the directory vitest runs in (from the repository root) and its files there.
// `pnpm test`'s random-seed pass runs the root reliability directory and every package entry;
// `pnpm reliability:soak` runs all of them per seed. test/reliability/seed-tooling.test.ts checks
// that every package test file using the plan is listed here.

/** Each package's core properties, run with the random seed (and by the soak). */
export const PACKAGE_PROPERTIES = [
	{ project: "packages/lifecycle-kit", files: ["test/kit.property.test.ts"] },
	{ project: "packages/pi-reset", files: ["test/reset.property.test.ts"] },
	{ project: "packages/pi-goal", files: ["test/goal.property.test.ts"] },
	{ project: "packages/pi-jscpd", files: ["test/jscpd.property.test.ts"] },
];

/** The root suite's seeded files the soak runs by default (`--all`: the whole directory). */
export const ROOT_SEEDED = {
	project: "test",
	files: [
		"reliability/fuzz.test.ts",
		"reliability/bus.property.test.ts",
		"reliability/hostile-generators.test.ts",
	],
};

/** The report each random-seed run writes in its project's `.artifacts/` (scripts/count-tests.mjs sums them). */
export const RANDOM_SEED_REPORT = "vitest-reliability-random.json";

/** A command line, run from the repository root, that reruns `files` of `project` with `seed`. */
export function reproduceCommand(seed, project, files) {
	return `cd ${project} && PI_LIFECYCLE_SEED=${seed} npx -y pnpm@12.4.2 exec vitest run ${files.join(" ")}`;
}
