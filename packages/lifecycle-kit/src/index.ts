/**
 * `@pi-lifecycle/lifecycle-kit`: the lifecycle primitives pi-reset, pi-goal and pi-jscpd share,
 * for any Pi extension that continues work, resets context or runs background checks.
 *
 * The only runtime import of Pi is project trust (`project-trust.ts`: trust store, resource check and
 * argument parser, from the host that loads your extension, as a peer; `trackLifecycle` takes the
 * session-start decision); the rest works with whichever Pi host loads it.
 *
 * Everything exported here (and from `./testing`) is public API: documented in the README, tested,
 * and covered by the semver policy there. Helpers not re-exported here are internal, even when
 * their module exports them for tests.
 */

export {
	applyProposal,
	type BoundaryEvent,
	type BoundaryEventName,
	type BoundaryParticipant,
	type BoundaryParticipantOptions,
	type BoundaryProposal,
	createBoundaryParticipant,
	isResetDraft,
	mergeBoundaryDrafts,
	WINDOW_KEY,
} from "./boundary.js";
export { BoundedOutput, type CapturedOutput, ELISION_MARKER } from "./bounded-output.js";
export {
	isResetAnnouncement,
	onResetAnnouncement,
	RESET_CHANNEL,
	type ResetAnnouncement,
	type ResetBus,
	readResetAnnouncement,
} from "./channels.js";
export { createDialogScope, type DialogScope, type OpenedDialogs } from "./dialogs.js";
export {
	type FlushOutcome,
	IdleDispatcher,
	type IdleIntent,
	type IdleProbe,
} from "./dispatcher.js";
export { checkHost, compareVersions, guardHost, type HostCheck, MIN_PI_VERSION } from "./host.js";
export {
	type GuardScope,
	type IdentityEvent,
	type IdentitySnapshot,
	initialIdentity,
	isContinuation,
	type LifecycleEventSource,
	LifecycleIdentity,
	nextIdentity,
	type StaleGuard,
	trackLifecycle,
} from "./identity.js";
export {
	classifyLocalFault,
	describeWriteError,
	type FaultPlace,
	LOCAL_FAULT_CODES,
	type LocalFault,
	type LocalFaultCode,
	piFaultPlaces,
} from "./local-fault.js";
export {
	type AcquireFailure,
	type AcquireOptions,
	type AcquireResult,
	AGENT_WORKFLOW_GROUP,
	createWorkflowMutex,
	type MutexBus,
	WORKFLOW_MUTEX_CHANNEL,
	WorkflowMutex,
	type WorkflowMutexAttempt,
	type WorkflowMutexOptions,
} from "./mutex.js";
export {
	NEW_WINDOW_CHANNEL,
	type NewWindowBus,
	NewWindowCollector,
	type NewWindowOffer,
	offerNewWindowDrafts,
} from "./new-window.js";
export { nativeExecutableName } from "./platform.js";
export {
	defaultRegistry,
	type ProcessOutcome,
	ProcessRegistry,
	type ProcessRequest,
	runProcess,
} from "./process.js";
export {
	ENV_ALLOWLIST,
	isInsideReal,
	isWithin,
	minimalEnv,
	type ProjectTrust,
	type ResolvedExecutable,
	realPath,
	realPathOrParent,
	resolveExecutable,
	safePathEntries,
} from "./process-policy.js";
export { processWideValue } from "./process-wide.js";
export {
	decideTrustAtSessionStart,
	type ExplicitTrustOptions,
	isExplicitlyTrusted,
	type ProjectTrustDecision,
	projectTrustDecision,
	type TrustContext,
	type TrustSource,
} from "./project-trust.js";
export {
	check,
	type LoadedSettings,
	loadSettings,
	MAX_SETTINGS_BYTES,
	parseSettingsText,
	type SaveResult,
	type SettingsLocation,
	type SettingsScope,
	type SettingsSource,
	type SettingsSpec,
	type SettingsValidation,
	saveSettings,
	settingsPaths,
} from "./settings.js";
export { OVERRIDDEN_NOTE, type SettingsChange, saveAndReload } from "./settings-change.js";
export { type ArmedSubscription, createArmedSubscription } from "./subscription.js";
export { cutText, cutTextEnd, hasLoneSurrogate, sliceText } from "./text-cut.js";
export {
	createFooterStatus,
	createOnceReporter,
	type FooterStatus,
	type NoticeContext,
	type NoticeLevel,
	type OnceReporter,
	stdoutRedirected,
	tellUser,
	writeStdout,
} from "./user-output.js";
export {
	type EntryLookup,
	entriesSince,
	type WalkableEntry,
	type WalkOptions,
	walkBackFromLeaf,
} from "./walk.js";
