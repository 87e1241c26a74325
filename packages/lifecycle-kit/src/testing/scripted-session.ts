/**
 * A scripted session: Pi's real AgentSession driven by pi-ai's faux provider.
 *
 * Extensions load from factories or from package directories through Pi's own loader. Every
 * extension event and every provider request is recorded so tests can assert on what the model
 * saw and how often it was called.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type AssistantMessage,
	type FauxModelDefinition,
	type FauxProviderHandle,
	type FauxResponseStep,
	fauxProvider,
	type Message,
	type Usage,
} from "@earendil-works/pi-ai";
import {
	type AgentSession,
	type CustomEntry,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionError,
	type ExtensionFactory,
	type ExtensionUIContext,
	type InlineExtension,
	ModelRuntime,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { recordExplicitTrust } from "../project-trust.js";
import { registerTestCleanup } from "./cleanup.js";
import { type RecordedEvent, type RecorderSink, recorderExtension } from "./recorder.js";
import { assertExtensionsLoaded, openSessionStorage, orderExtensions } from "./session-setup.js";
import {
	type CustomMessageRecord,
	customEntries,
	customMessages,
	type SettledRun,
	type WaitOptions,
	waitForIdle,
	waitForRun,
} from "./session-waits.js";

type Settings = Parameters<typeof SettingsManager.inMemory>[0];
/** Pi's extension mode (`"tui"`, `"rpc"`, …), as `bindExtensions` takes it. */
type UIMode = NonNullable<Parameters<AgentSession["bindExtensions"]>[0]["mode"]>;

/** Options for {@link createScriptedSession}. */
export interface ScriptedSessionOptions {
	/** Inline extension factories, loaded in this order. */
	extensions?: readonly (ExtensionFactory | { name: string; factory: ExtensionFactory })[];
	/** Extension files or package directories, loaded through Pi's loader (the `pi` manifest is honoured). */
	extensionPaths?: readonly string[];
	/** Faux model limits. Defaults: id `faux-model`, 128k context window, 16k max tokens. */
	model?: FauxModelDefinition;
	/** Pi settings (retry, compaction, …). Defaults: retry on with 1 ms base delay, compaction on. */
	settings?: Settings;
	/** Working directory; a fresh temp dir by default (removed by dispose). */
	cwd?: string;
	/**
	 * Pi's answer to "trust this project?" (`ctx.isProjectTrusted()`) from `session_start` on. Default true
	 * (Pi's SDK; explicit for `isExplicitlyTrusted`); `"implicit"`: the `pi` CLI's unasked yes, which is not.
	 */
	projectTrusted?: boolean | "implicit";
	/**
	 * Session storage: `"memory"` (default), `"file"` for a new session file under the temp dir,
	 * or the path of an existing session file to reopen.
	 */
	session?: "memory" | "file" | { open: string };
	/** Tool allowlist passed to Pi (built-in tools are read, bash, edit, write). */
	tools?: string[];
	/**
	 * An interactive UI for the extensions (e.g. `createDialogStub().ui`), bound before
	 * `session_start` so `ctx.hasUI` is true throughout; `mode` defaults to `"tui"`. Without it the
	 * session runs like Pi's print mode (no UI, dialogs answer at once with nothing).
	 */
	ui?: { readonly context: ExtensionUIContext; readonly mode?: UIMode };
	/** Scripted responses queued before the first prompt. */
	responses?: readonly FauxResponseStep[];
	/** Where the recorder goes relative to the extensions under test. Default: last. */
	recorderPosition?: "first" | "last";
	/**
	 * Whether to load the recorder extension (default true). Benchmarks turn it off: its handlers
	 * (turn_end among them) change what Pi does per turn, so they would be measured too. Without it
	 * `events` stays empty.
	 */
	recorder?: boolean;
	/**
	 * Register `dispose` with the test runner (default true): under vitest the session is disposed
	 * when the creating test finishes (`onTestFinished`); see `setTestCleanup` for other runners.
	 * Outside a test (e.g. in `beforeAll`) nothing is registered: dispose it yourself.
	 */
	autoDispose?: boolean;
}

/** One provider request as the model received it. */
export interface RecordedRequest {
	/** 1-based index among all provider calls of this session. */
	readonly index: number;
	/** The transcript messages sent (system messages included). */
	readonly messages: readonly Message[];
}

/** A running scripted session. Disposed when the test finishes (`autoDispose`), or call {@link ScriptedSession.dispose}. */
export interface ScriptedSession {
	/** Pi's real session object. */
	readonly session: AgentSession;
	/** The faux provider (state.callCount counts every provider call, including failed ones). */
	readonly faux: FauxProviderHandle;
	/** Working directory of the session. */
	readonly cwd: string;
	/** Pi agent directory used by this session (isolated). */
	readonly agentDir: string;
	/** Every extension event, in order. */
	readonly events: RecordedEvent[];
	/** Every provider request that consumed a scripted step, in order. */
	readonly requests: RecordedRequest[];
	/** Extension errors reported by Pi's runner (handler throws, rejected sends, …). */
	readonly errors: ExtensionError[];
	/** Queues more scripted responses. */
	script(...steps: FauxResponseStep[]): void;
	/** Sends a user prompt and resolves after Pi settled (including deferred runs). */
	prompt(text: string, options?: Parameters<AgentSession["prompt"]>[1]): Promise<void>;
	/** Rewrites the usage of subsequent assistant messages (to reach compaction thresholds). */
	setUsage(
		usage: Partial<Usage> | ((message: AssistantMessage) => Partial<Usage> | undefined) | undefined,
	): void;
	/** Reloads extensions (session_shutdown reason=reload, factories re-run, session_start reason=reload). */
	reload(): Promise<void>;
	/** Aborts the current run and waits for idle. */
	abort(): Promise<void>;
	/** Resolves when the next run settles, e.g. one an extension starts from idle (see `waitForRun`). */
	waitForRun(options?: WaitOptions): Promise<SettledRun>;
	/** Resolves once idle with nothing queued, deferred runs included (see `waitForIdle`). */
	waitForIdle(options?: WaitOptions): Promise<void>;
	/** Custom messages (`pi.sendMessage`) on the current branch, optionally of one `customType`. */
	customMessages(customType?: string): CustomMessageRecord[];
	/** Custom entries (`pi.appendEntry`) on the current branch, optionally of one `customType`. */
	customEntries<T = unknown>(customType?: string): CustomEntry<T>[];
	/** Event types in order, optionally filtered. */
	eventTypes(filter?: (event: RecordedEvent) => boolean): string[];
	/** How many recorded events have this type. */
	count(type: string): number;
	/** Number of provider calls so far. */
	readonly providerCalls: number;
	/** Path of the session file, when the session is file-backed. */
	readonly sessionFile: string | undefined;
	/**
	 * Disposes the session (without session_shutdown, as Pi does) and removes the temp directory.
	 * Pass `keepFiles` to keep a file-backed session for reopening. Idempotent.
	 */
	dispose(options?: { keepFiles?: boolean }): Promise<void>;
}

const DEFAULT_SETTINGS: Settings = {
	retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 },
	compaction: { enabled: true },
};

let fauxCounter = 0;

/** Starts a scripted session with Pi's real agent loop and a faux provider. */
export async function createScriptedSession(options: ScriptedSessionOptions = {}): Promise<ScriptedSession> {
	const tempRoot = mkdtempSync(join(tmpdir(), "pi-lifecycle-harness-"));
	const cwd = options.cwd ?? join(tempRoot, "project");
	const agentDir = join(tempRoot, "agent");
	mkdirSync(cwd, { recursive: true });
	mkdirSync(agentDir, { recursive: true });

	const requests: RecordedRequest[] = [];
	const faux = fauxProvider({
		provider: `faux${++fauxCounter}`,
		models: [{ id: "faux-model", contextWindow: 128_000, maxTokens: 16_000, ...options.model }],
	});
	const recordStep = (step: FauxResponseStep): FauxResponseStep => {
		return async (context, streamOptions, state, model) => {
			requests.push({ index: state.callCount, messages: structuredClone(context.messages) });
			return typeof step === "function" ? step(context, streamOptions, state, model) : step;
		};
	};
	faux.setResponses((options.responses ?? []).map(recordStep));

	const sink: RecorderSink = { events: [], usage: undefined };
	const recorder: InlineExtension = { name: "pi-lifecycle-recorder", factory: recorderExtension(sink) };
	const extensionFactories = orderExtensions(options.extensions, recorder, options);

	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: join(agentDir, "models.json"),
	});
	modelRuntime.registerNativeProvider(faux.provider);
	const projectTrusted = options.projectTrusted !== false;
	const undoExplicitTrust = (options.projectTrusted ?? true) === true ? recordExplicitTrust(cwd) : () => {};
	const settingsManager = SettingsManager.inMemory(
		{ ...DEFAULT_SETTINGS, ...options.settings },
		{ projectTrusted },
	);
	const loader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		extensionFactories,
		additionalExtensionPaths: options.extensionPaths ? [...options.extensionPaths] : undefined,
		noExtensions: true,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await loader.reload();
	assertExtensionsLoaded(loader.getExtensions(), () => {
		undoExplicitTrust();
		rmSync(tempRoot, { recursive: true, force: true });
	});

	const sessionDir = join(tempRoot, "sessions");
	const sessionManager = openSessionStorage(options.session ?? "memory", cwd, sessionDir);

	const { session } = await createAgentSession({
		modelRuntime,
		resourceLoader: loader,
		model: faux.getModel(),
		cwd,
		agentDir,
		sessionManager,
		settingsManager,
		tools: options.tools,
	});
	const errors: ExtensionError[] = [];
	// An error listener is a binding: Pi re-attaches it to every new runner after a reload, and Pi
	// 1.3.0 emits session_start(reload) only when the session has a binding.
	let recording = true;
	await session.bindExtensions({
		...(options.ui ? { uiContext: options.ui.context, mode: options.ui.mode ?? "tui" } : {}),
		onError: (error) => {
			if (recording) errors.push(error);
		},
	});

	let disposed = false;
	const harness: ScriptedSession = {
		session,
		faux,
		cwd,
		agentDir,
		events: sink.events,
		requests,
		errors,
		script(...steps) {
			faux.appendResponses(steps.map(recordStep));
		},
		async prompt(text, promptOptions) {
			await session.prompt(text, promptOptions);
		},
		setUsage(usage) {
			sink.usage = usage;
		},
		async reload() {
			await session.reload();
			assertExtensionsLoaded(loader.getExtensions());
		},
		async abort() {
			await session.abort();
		},
		waitForRun: (waitOptions) => waitForRun(session, waitOptions),
		waitForIdle: (waitOptions) => waitForIdle(session, waitOptions),
		customMessages: (customType) => customMessages(session, customType),
		customEntries: (customType) => customEntries(session, customType),
		eventTypes(filter) {
			return sink.events.filter((event) => (filter ? filter(event) : true)).map((event) => event.type);
		},
		count(type) {
			return sink.events.filter((event) => event.type === type).length;
		},
		get providerCalls() {
			return faux.state.callCount;
		},
		get sessionFile() {
			return session.sessionManager.getSessionFile();
		},
		async dispose(disposeOptions) {
			if (disposed) return;
			disposed = true;
			recording = false;
			try {
				await session.abort();
			} catch {
				// Already idle or already torn down.
			}
			session.dispose();
			undoExplicitTrust();
			if (!disposeOptions?.keepFiles) rmSync(tempRoot, { recursive: true, force: true });
		},
	};
	if (options.autoDispose !== false) registerTestCleanup(() => harness.dispose());
	return harness;
}
