// Faux script (CLI's default trust state, a git repository): one bash command checks out a branch
// that holds an old copy, writes a pnpm lockfile and copies a module; then jscpd_run changed.
const entry = (name) => `  ${name}@1.2.3:
    resolution: {integrity: sha512-0000000000000000000000000000000000000000000000000000000000000000}
    engines: {node: '>=18'}
    cpu: [x64]
    os: [linux]
    libc: [glibc]
    peerDependencies:
      typescript: '>=5.0.0'
    peerDependenciesMeta:
      typescript:
        optional: true
    hasBin: true
`;
const lock = `lockfileVersion: '9.0'\n\npackages:\n\n${["alpha", "beta", "gamma", "delta"].map(entry).join("\n")}`;
export default ({ fauxAssistantMessage, fauxText, fauxToolCall }) => [
	fauxAssistantMessage(
		[
			fauxToolCall("bash", {
				// A model takes seconds to answer; the faux one does not: the sleep lets the session baseline finish first.
				command: `sleep 2 && git checkout -q feature && cat > pnpm-lock.yaml <<'EOF'\n${lock}EOF\ncp src/a.ts src/e.ts`,
			}),
		],
		{ stopReason: "toolUse" },
	),
	fauxAssistantMessage([fauxToolCall("jscpd_run", { command: "changed" })], { stopReason: "toolUse" }),
	fauxAssistantMessage(fauxText("Checked.")),
];
