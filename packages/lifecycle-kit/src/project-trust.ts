/**
 * Explicit project trust, decided once per session start. `ctx.isProjectTrusted()` is not "the user
 * said yes": the `pi` CLI asks only when the project has Pi resources of its own
 * (`hasTrustRequiringProjectResources`) and answers true without asking for any other directory with
 * no saved decision — a freshly cloned hostile repository included. Our extensions run git and read
 * project config, so they need the user's word, taken when Pi took its decision: a Pi resource that
 * appears later (the agent writes `.pi/prompts/x.md`, a `git pull`) changes nothing, and neither
 * does the `true` Pi's interactive `/reload` then saves in `trust.json` by itself.
 */
import {
	getAgentDir,
	hasTrustRequiringProjectResources,
	ProjectTrustStore,
} from "@earendil-works/pi-coding-agent";
import { piCliApproval } from "./pi-cli-approval.js";
import { processWideValue } from "./process-wide.js";
import {
	dirKey,
	forgetSavedByPi,
	harnessTrusted,
	isSavedByPi,
	markSavedByPi,
	type SessionTrust,
	sessionTrust,
	setSessionTrust,
	type TrustSource,
} from "./trust-records.js";
import { type NoticeContext, tellUser } from "./user-output.js";

export { recordExplicitTrust } from "./trust-records.js";
export type { TrustSource };

/** The context a trust check needs: the project directory and Pi's answer (and, in Pi, the session). */
export interface TrustContext {
	readonly cwd: string;
	isProjectTrusted(): boolean;
	/** Pi's session manager: the decision taken at this session's start is kept per session. */
	readonly sessionManager?: object;
}

/** Where the explicit decision is looked up; defaults are Pi's agent dir and this process's arguments. */
export interface ExplicitTrustOptions {
	/** Pi's agent dir holding `trust.json`; default `getAgentDir()` (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
	agentDir?: string;
	/** Command-line arguments; default `process.argv`. Read only when `argv[1]` is a `pi` CLI (a Pi package's `bin.pi`). */
	argv?: readonly string[];
}

/** A project trust decision and where it came from. */
export interface ProjectTrustDecision {
	/** The user trusted the project explicitly. */
	readonly trusted: boolean;
	/**
	 * `approve`: `--approve` on pi's command line; `saved`: a saved decision (`/trust`, Pi's prompt);
	 * `asked`: Pi had to decide at the session start (prompt, `defaultProjectTrust`); `harness`: the
	 * kit test harness; `implicit`: Pi trusted a plain directory without asking; `saved-by-pi`: the
	 * only trust is the `trust.json` entry Pi's `/reload` saved without asking; `not-trusted`: Pi
	 * does not trust the project, or the context is stale.
	 */
	readonly source: TrustSource;
}

const NOT_TRUSTED: ProjectTrustDecision = { trusted: false, source: "not-trusted" };

interface Inputs {
	readonly cwd: string;
	readonly agentDir: string;
	readonly argv: readonly string[];
}

function inputs(ctx: TrustContext, options: ExplicitTrustOptions): Inputs {
	return { cwd: ctx.cwd, agentDir: options.agentDir ?? getAgentDir(), argv: options.argv ?? process.argv };
}

/** The saved decision closest to `cwd` (Pi's rule) that the user made; Pi's own `/reload` save is not one. */
function savedByUser(input: Inputs): boolean | undefined {
	const entry = new ProjectTrustStore(input.agentDir).getEntry(input.cwd);
	if (!entry) return undefined;
	if (entry.decision && isSavedByPi(input.agentDir, entry.path)) return undefined;
	return entry.decision;
}

/**
 * What Pi decided at a session start, as far as it was the user's word. `piHadToDecide` is false when
 * the start cannot be seen any more (a kit first loaded by `/reload`): then only the sources that
 * outlive the start count.
 */
function decideAtStart(input: Inputs, piHadToDecide: boolean): ProjectTrustDecision {
	if (harnessTrusted(input.cwd)) return { trusted: true, source: "harness" };
	if (piCliApproval(input.argv) === true) return { trusted: true, source: "approve" };
	const store = new ProjectTrustStore(input.agentDir);
	const entry = store.getEntry(input.cwd);
	const key = dirKey(input.cwd);
	if (!(entry?.decision === true && entry.path === key)) forgetSavedByPi(input.agentDir, key);
	if (entry?.decision === true) {
		return isSavedByPi(input.agentDir, entry.path)
			? { trusted: false, source: "saved-by-pi" }
			: { trusted: true, source: "saved" };
	}
	if (entry === null && piHadToDecide && hasTrustRequiringProjectResources(input.cwd)) {
		return { trusted: true, source: "asked" };
	}
	return { trusted: false, source: "implicit" };
}

/** After the start, only the user can upgrade: a saved decision they made (`/trust`), or the harness. */
function upgradedByUser(input: Inputs): ProjectTrustDecision | undefined {
	if (harnessTrusted(input.cwd)) return { trusted: true, source: "harness" };
	if (savedByUser(input) === true) return { trusted: true, source: "saved" };
	return undefined;
}

function record(ctx: TrustContext, decision: ProjectTrustDecision): void {
	const session = ctx.sessionManager;
	if (session && typeof session === "object")
		setSessionTrust(session, { explicit: decision.trusted, source: decision.source, cwd: dirKey(ctx.cwd) });
}

function recorded(ctx: TrustContext): SessionTrust | undefined {
	const session = ctx.sessionManager;
	if (!session || typeof session !== "object") return undefined;
	const decision = sessionTrust(session);
	return decision && decision.cwd === dirKey(ctx.cwd) ? decision : undefined;
}

/**
 * Takes this session start's trust decision. Call it in `session_start` before anything reads trust
 * (`trackLifecycle` does, so extensions built on it need nothing more). A `reload` keeps the decision
 * of the start it reloads (Pi keeps its own too); `startup`, `new`, `resume` and `fork` take a new one
 * from what Pi decided for that session. Never throws; returns the decision.
 */
export function decideTrustAtSessionStart(
	event: { readonly reason?: string },
	ctx: TrustContext,
	options: ExplicitTrustOptions = {},
): ProjectTrustDecision {
	try {
		if (event.reason === "startup") watchPiReloadSave(inputs(ctx, options));
		if (!ctx.isProjectTrusted()) return NOT_TRUSTED;
		const input = inputs(ctx, options);
		const kept = event.reason === "reload" ? recorded(ctx) : undefined;
		const decision = kept
			? { trusted: kept.explicit, source: kept.source }
			: decideAtStart(input, event.reason !== "reload");
		if (!kept) record(ctx, decision);
		const piSaves =
			event.reason === "reload" && piMaySaveOnReload(input, decision) && expectPiToSaveTrust(input);
		if (piSaves && !decision.trusted) tellSavedByPiOnce(ctx);
		if (decision.source === "saved-by-pi") tellSavedByPiOnce(ctx);
		return projectTrustDecision(ctx, options);
	} catch {
		return NOT_TRUSTED;
	}
}

/**
 * Pi's `autoTrustOnReloadCwd`, as seen at this process's `startup` (shared by every kit copy): the
 * one directory Pi's interactive `/reload` may save trust for, the startup session's, when it had no
 * Pi resources then and pi had no `--approve`/`--no-approve`. Pi forgets it once a reload finds a
 * saved entry or saves one. Unseen (no kit saw the startup): every untrusted session may be it.
 */
function reloadSaveWatch(): { seen: boolean; cwd: string | undefined } {
	return processWideValue("@pi-lifecycle/trust-reload-save-cwd.v1", () => ({ seen: false, cwd: undefined }));
}

function watchPiReloadSave(input: Inputs): void {
	const watch = reloadSaveWatch();
	watch.seen = true;
	const plain = piCliApproval(input.argv) === undefined && !hasTrustRequiringProjectResources(input.cwd);
	watch.cwd = plain ? dirKey(input.cwd) : undefined;
}

/**
 * Whether this reload is one after which Pi may save its implicit trust: also in a session the user
 * trusted for itself only (Pi's prompt at `/resume`, "Trust (this session only)"), where Pi's save
 * would make that trust outlive the session.
 */
function piMaySaveOnReload(input: Inputs, decision: ProjectTrustDecision): boolean {
	const watch = reloadSaveWatch();
	if (!watch.seen) return !decision.trusted;
	if (watch.cwd !== dirKey(input.cwd)) return false;
	if (new ProjectTrustStore(input.agentDir).getEntry(input.cwd) !== null) watch.cwd = undefined;
	else if (hasTrustRequiringProjectResources(input.cwd)) watch.cwd = undefined; // Pi saves now, once
	return true;
}

/**
 * Pi's interactive `/reload` (1.3.0–1.6.0 `maybeSaveImplicitProjectTrustAfterReload`) saves `true`
 * for the session's directory when Pi trusted it without asking, Pi resources exist now and nothing
 * is saved yet: right after the reload's `session_start`, without asking. Recorded before it happens.
 */
function expectPiToSaveTrust(input: Inputs): boolean {
	if (!hasTrustRequiringProjectResources(input.cwd)) return false;
	if (new ProjectTrustStore(input.agentDir).getEntry(input.cwd) !== null) return false;
	markSavedByPi(input.agentDir, dirKey(input.cwd));
	return true;
}

/** What the user is told, once per process and project, when Pi's own save is the only trust. */
export const SAVED_BY_PI_NOTICE =
	"Pi saves this project as trusted by itself on /reload, without asking you. The pi-lifecycle extensions (pi-reset, pi-goal, pi-jscpd) do not count that as your decision and keep the project untrusted: no git, no project settings or jscpd config. Start pi with --approve to trust it.";

function tellSavedByPiOnce(ctx: TrustContext): void {
	const told = processWideValue("@pi-lifecycle/trust-saved-by-pi-told.v1", () => new Set<string>());
	const key = dirKey(ctx.cwd);
	if (told.has(key)) return;
	told.add(key);
	tellUser(ctx as Partial<NoticeContext> as NoticeContext, "pi-lifecycle", SAVED_BY_PI_NOTICE, "warning");
}

/**
 * The trust decision for this session: the one taken at its start (see
 * {@link decideTrustAtSessionStart}), upgraded only by the user since (a saved `/trust`). Without a
 * session (a plain {@link TrustContext}) every call is its own start. Untrusted when Pi does not
 * trust the project, when the context is stale or when a check fails.
 */
export function projectTrustDecision(
	ctx: TrustContext,
	options: ExplicitTrustOptions = {},
): ProjectTrustDecision {
	try {
		if (!ctx.isProjectTrusted()) return NOT_TRUSTED;
		const input = inputs(ctx, options);
		let start = recorded(ctx);
		if (!start) {
			const decision = decideAtStart(input, true);
			record(ctx, decision);
			if (decision.trusted) return decision;
			start = { explicit: false, source: decision.source, cwd: dirKey(ctx.cwd) };
		}
		if (start.explicit) return { trusted: true, source: start.source };
		return upgradedByUser(input) ?? { trusted: false, source: start.source };
	} catch {
		return NOT_TRUSTED;
	}
}

/**
 * Whether the user trusted this project explicitly ({@link projectTrustDecision}`.trusted`):
 * `ctx.isProjectTrusted()` is true and, at this session's start, Pi had to decide (the project had Pi
 * resources of its own), a saved decision the user made says true (`/trust`, closest parent wins), or
 * pi's own command line has `--approve`/`-a`; or the user saved one with `/trust` since.
 */
export function isExplicitlyTrusted(ctx: TrustContext, options: ExplicitTrustOptions = {}): boolean {
	return projectTrustDecision(ctx, options).trusted;
}

/**
 * What a user who wants the project trusted can do, for the untrusted notices: usually `/trust` or
 * `--approve`; when the only trust is the entry Pi's `/reload` saved by itself, `/trust` writes the same
 * entry again and cannot be told apart from it, so the advice says so.
 */
export function untrustedAdvice(agentDir: string, cwd: string): string {
	try {
		const entry = new ProjectTrustStore(agentDir).getEntry(cwd);
		if (entry?.decision === true && isSavedByPi(agentDir, entry.path))
			return "Pi saved it as trusted by itself on /reload, which is not your decision; start pi with --approve to trust it";
	} catch {
		// The usual advice below.
	}
	return "/trust it, or start pi with --approve";
}
