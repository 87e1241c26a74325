/**
 * Regenerates docs/tui-tour.md: drives the real interactive pi under tmux (see driver.ts) and keeps
 * plain-text captures of what the user sees. Run from the repository root:
 *
 *   npx -y pnpm@12.4.2 exec node test/tui/tour.ts
 *
 * Goal and window ids are random per run; temp paths are replaced by `~/project`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

// A computed specifier keeps this script runnable by plain Node (type stripping needs `.ts`)
// while the type comes from the module vitest compiles.
type Driver = typeof import("./driver.js");
const driverUrl = new URL("./driver.ts", import.meta.url).href;
const { choose, command, fauxScript, repoRoot, startPi, submit } = (await import(driverUrl)) as Driver;
type Duplicates = typeof import("../support/duplicates.js");
const duplicatesUrl = new URL("../support/duplicates.ts", import.meta.url).href;
const { duplicatedFunction } = (await import(duplicatesUrl)) as Duplicates;

/** One captured screen with its caption. */
interface Shot {
	readonly title: string;
	readonly text: string;
	readonly screen: string;
}

const shots: Shot[] = [];

/**
 * The part of a screen worth reading: Pi's startup banner and offline warnings dropped, runs of
 * blank lines collapsed, at most `lines` lines from the bottom, temp paths replaced.
 */
function keep(screen: string, lines: number): string {
	let all = screen
		.replace(/\/tmp\/pi-lifecycle-tui-[A-Za-z0-9]+\/project/g, "~/project")
		.replace(/\/tmp\/pi-lifecycle-tui-[A-Za-z0-9]+\/agent/g, "~/.pi/agent")
		.replaceAll(`${repoRoot}/`, "<repo>/")
		.split("\n");
	const banner = all.findLastIndex((line) => /Warning: ripgrep not found|pi-reset\/src$/.test(line));
	if (banner >= 0) all = all.slice(banner + 1);
	all = all.filter((line, index) => line.trim() !== "" || (all[index - 1] ?? "").trim() !== "");
	while (all.length > 0 && all[0]?.trim() === "") all.shift();
	while (all.length > 0 && all[all.length - 1]?.trim() === "") all.pop();
	return all.slice(-lines).join("\n");
}

function shot(title: string, text: string, screen: string, lines = 40): void {
	shots.push({ title, text, screen: keep(screen, lines) });
}

async function goalTour(): Promise<void> {
	const tui = await startPi({ script: fauxScript("gated-goal.mjs"), gated: true });
	try {
		tui.type("/goal ");
		shot(
			"`/goal` autocomplete",
			"Typing `/goal ` lists every subcommand with its one-line help; Tab completes the highlighted one.",
			await tui.waitForScreen(/retry-usage-limits|clear\s+remove the goal/),
		);
		tui.sendKeys("C-u");
		await tui.waitForScreen(/^─{20,}\n\s*\n─{20,}$/m);
		submit(tui, "/goal --tokens 100k Write the two parts");
		shot(
			"The footer during a goal",
			"Each extension writes one status under its own key: `pi-goal` (state, active time, automatic turns, budget), `pi-jscpd` and `pi-reset` (the current context window).",
			await tui.waitForScreen(/goal: active \d+s · 0\/25 responses · budget/),
		);
		submit(tui, "/goal");
		shot(
			"The `/goal` manager menu",
			"Bare `/goal` in the TUI opens the manager. The entries follow the goal's state (a paused goal offers Resume, a waiting one Resume now).",
			await tui.waitForScreen(/Full status/),
		);
		await choose(tui, /Clear the goal/);
		shot(
			"A confirmation dialog",
			"Clearing asks first. The dialog remembers the goal id and status it was opened for.",
			await tui.waitForScreen(/Clear goal g-[a-z0-9]+\?/),
		);
		tui.openGate();
		await tui.waitForScreen(/goal: complete · budget/, 20_000);
		tui.sendKeys("Enter");
		shot(
			"The goal changed while the dialog was open",
			"Here the model completed the goal while the confirmation was open; answering Yes afterwards does nothing and says why.",
			await tui.waitForScreen(/The goal changed while the dialog was open/),
		);
	} finally {
		tui.close();
	}
}

async function goalDialogsTour(): Promise<void> {
	// The abortable script holds each answer until the gate opens or Pi aborts it (pause).
	const tui = await startPi({ script: fauxScript("abortable-goal.mjs"), gated: true });
	try {
		submit(tui, "/goal Write the two parts");
		await tui.waitForScreen(/^goal: active \d+s/m);
		submit(tui, "/goal");
		await tui.waitForScreen(/Full status/);
		await choose(tui, /Pause/);
		await tui.waitForScreen(/^goal: paused/m);
		submit(tui, "/goal");
		shot(
			"Pause and resume from the menu",
			"Pause stops the current turn and keeps the goal; the footer says `paused`. The menu of a paused goal offers Resume instead of Pause.",
			await tui.waitForScreen(/Resume \(new goal id\)/),
		);
		await choose(tui, /Resume \(new goal id\)/);
		shot(
			"Resumed with a new goal id",
			"Resuming a stopped goal gives it a new id (a reply or tool call still meant for the old id is rejected) and the model continues.",
			await tui.waitForScreen(/Goal g-[a-z0-9]+ resumed\./),
		);
		submit(tui, "/goal");
		await tui.waitForScreen(/Full status/);
		await choose(tui, /Edit the objective/);
		shot(
			"Editing the objective",
			"Edit the objective opens Pi's editor dialog with the current objective (Enter submits, Shift+Enter adds a line, Escape cancels and changes nothing).",
			await tui.waitForScreen(/Edit the objective of goal g-[a-z0-9]+/),
		);
		tui.sendKeys("End");
		tui.type(" and the tests");
		await tui.waitForScreen(/Write the two parts and the tests/);
		tui.sendKeys("Enter");
		await tui.waitForScreen(/Goal edited; new goal id g-[a-z0-9]+ \(active\)\./);
		await command(tui, "/goal status");
		shot(
			"The edited goal",
			"The edit gives the goal a new id; an active goal stays active. `/goal status` shows the new objective.",
			await tui.waitForScreen(/Objective: Write the two parts and the tests/),
		);
		submit(tui, "/goal");
		await tui.waitForScreen(/Full status/);
		await choose(tui, /Settings/);
		shot(
			"The goal settings",
			"Settings… lists each setting with its value and one line on what it does; they are saved to the global settings file.",
			await tui.waitForScreen(/noProgressTurns: \d+ · /),
		);
		await choose(tui, /automaticTurns:/);
		await tui.waitForScreen(/a whole number, or "off"\)/);
		submit(tui, "lots");
		shot(
			"An invalid setting asks again",
			"A value that is not valid says why and asks again in the same dialog; Escape cancels and changes nothing.",
			await tui.waitForScreen(/Try again, or press Escape/),
		);
		tui.sendKeys("Escape");
	} finally {
		tui.close();
	}
}

async function resetTour(): Promise<void> {
	const tui = await startPi({ script: fauxScript("reset.mjs") });
	try {
		await command(tui, "/reset status");
		shot(
			"`/reset status`",
			"The window id, the tokens left before pi-reset asks the model to checkpoint, and the resets so far.",
			await tui.waitForScreen(/Resets so far: 0\./),
		);
		submit(tui, "start the task");
		shot(
			"A reset in the transcript",
			"The model called `new_context`; the window ends with an instant reset (no summarising model call) and the reply continues in window `w1-…`.",
			await tui.waitForScreen(/Continuing in the fresh window\./, 20_000),
		);
		await command(tui, "/reset status");
		shot("`/reset status` after the reset", "", await tui.waitForScreen(/Resets so far: 1\./));
	} finally {
		tui.close();
	}
}

async function jscpdTour(): Promise<void> {
	const tui = await startPi({
		projectFiles: { "src/a.ts": duplicatedFunction("alpha"), "src/b.ts": duplicatedFunction("beta") },
	});
	try {
		await tui.waitForScreen(/jscpd: ready/, 30_000);
		await command(tui, "/jscpd");
		shot(
			"The `/jscpd` overview",
			"Bare `/jscpd` in the TUI opens the overview. Opening it never scans: the title is the short status, and the entries run the changed check or a project scan (the same paths as `/jscpd changed` and `/jscpd scan`), browse the latest findings, or show the help.",
			await tui.waitForScreen(/Browse findings \(0\)/),
		);
		tui.sendKeys("Down");
		await tui.waitForScreen(/→ Run a project scan/);
		tui.sendKeys("Enter");
		shot(
			"A project scan from the overview",
			"Each clone pair is listed as `path:start-end ≈ path:start-end`; afterwards the overview lists them under Browse findings, after the new duplicates (`Browse findings (0 · 1 from the last scan)`).",
			await tui.waitForScreen(/jscpd: 1 duplicated block/, 30_000),
		);
		tui.sendKeys("Escape");
		await command(tui, "/jscpd status");
		shot(
			"`/jscpd status`",
			"What is checked, what the baseline holds, how changes are found (in any project, trusted or not, with or without git: by comparing the project's files with a listing from the session start) and what the last check found, in plain words. A plain directory Pi trusts without asking counts as untrusted, and the status says what that changes.",
			await tui.waitForScreen(/Automatic jscpd checks are on/, 20_000),
			16,
		);
		await command(tui, "/jscpd status --verbose");
		shot(
			"`/jscpd status --verbose`",
			"The internals, for bug reports: the executable, the settings and their sources, the change-detection mode (`files`, or `files+git` in a trusted git repository), check generations and the recent check records.",
			await tui.waitForScreen(/mutation generation/, 20_000),
			24,
		);
	} finally {
		tui.close();
	}
}

async function jscpdTriageTour(): Promise<void> {
	const tui = await startPi({
		script: fauxScript("triage-fix.mjs"),
		gated: true,
		projectFiles: { "src/a.ts": duplicatedFunction("alpha") },
	});
	try {
		await tui.waitForScreen(/jscpd: ready/, 30_000);
		submit(tui, "write b.ts");
		await tui.waitForScreen(/jscpd: 1 new duplicate/, 30_000);
		await command(tui, "/jscpd");
		await choose(tui, /Browse findings \(1\)/);
		shot(
			"Browsing the findings",
			"The model copied `src/a.ts` into `src/b.ts`; the automatic checkpoint reported it (the footer says `jscpd: 1 new duplicate`). Browse lists every current finding, whichever check found it, newest first: both locations, kind, size and whether the model was told. The overview's count is the footer's.",
			await tui.waitForScreen(/jscpd findings, newest first \(1\)/),
		);
		await choose(tui, /1\. src\/b\.ts/);
		shot(
			"One finding's menu",
			"Ask the agent to fix it sends one message naming both locations (only while the agent is idle and no other workflow, such as a goal, drives the session). Show both blocks prints the two snippets; Dismiss as intended keeps it from the model for good.",
			await tui.waitForScreen(/Finding 1: copies existing code/),
		);
		await choose(tui, /Show both blocks/);
		shot(
			"Show both blocks",
			"The two blocks one after the other, with line numbers (at most 30 lines of 160 characters each, read only inside the project); the finding's menu stays open below.",
			await tui.waitForScreen(/Second block: src\/a\.ts/),
		);
		await choose(tui, /Dismiss as intended/);
		shot(
			"Dismissed, with the undo in the same menu",
			"The dismissal is saved in the session (kept on reload and resume) under the clone's stable identity: no check reports it to the model again, not even after a reset. The menu now offers Undo dismiss; `/jscpd undismiss 1` does the same.",
			await tui.waitForScreen(/Undo dismiss/),
		);
		await choose(tui, /Undo dismiss/);
		await tui.waitForScreen(/finding 1 is reported again/);
		await choose(tui, /Ask the agent to fix it/);
		shot(
			"Asking the agent to fix it",
			"One user message names both locations; the agent takes it from there. While the agent works, the same entry refuses and says why, and nothing is queued.",
			await tui.waitForScreen(/I will extract the shared code\./, 20_000),
		);
		tui.openGate();
	} finally {
		tui.close();
	}
}

await goalTour();
await goalDialogsTour();
await resetTour();
await jscpdTour();
await jscpdTriageTour();

// PI_TUI_TOUR_OUT writes elsewhere (to try the tour without touching docs/).
const out = process.env.PI_TUI_TOUR_OUT ?? join(repoRoot, "docs", "tui-tour.md");
mkdirSync(dirname(out), { recursive: true });
const body = shots
	.map((s) =>
		[`## ${s.title}`, "", ...(s.text ? [s.text, ""] : []), "```text", s.screen, "```", ""].join("\n"),
	)
	.join("\n");
writeFileSync(
	out,
	[
		"# pi-lifecycle in Pi's TUI: a tour",
		"",
		"Plain-text captures of the real interactive `pi` (1.6.0, 120×40 tmux pane) with pi-goal, pi-reset and",
		"pi-jscpd loaded and a scripted faux model. Generated by `test/tui/tour.ts`",
		"(`npx -y pnpm@12.4.2 exec node test/tui/tour.ts`); the same flows are asserted by `test/tui/*.test.ts`.",
		"Ids differ on every run.",
		"",
		body,
		"## Notes",
		"",
		"- pi-reset's boot note (`pi-reset/boot`) and checkpoint warning (`pi-reset/warning`) render as one header",
		"  line (`reset · window … starts here · with handoff`) with the full note behind Pi's expand key (ctrl+o),",
		"  as in the `/reset status` screen above. The model receives the full note either way.",
		"",
	].join("\n"),
);
console.log(`wrote ${out} (${shots.length} screens)`);
