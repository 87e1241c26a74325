/**
 * `@pi-lifecycle/lifecycle-kit`: the lifecycle primitives pi-reset, pi-goal and pi-jscpd share,
 * for any Pi extension that continues work, resets context or runs background checks.
 *
 * Nothing here imports Pi at runtime: the kit works with whichever Pi host loads your extension.
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
export {
	isResetAnnouncement,
	RESET_CHANNEL,
	type ResetAnnouncement,
	readResetAnnouncement,
} from "./channels.js";
export { createDialogScope, type DialogScope, type OpenedDialogs } from "./dialogs.js";
export {
	type FlushOutcome,
	IdleDispatcher,
	type IdleIntent,
	type IdleProbe,
	type Selection,
	selectIntent,
} from "./dispatcher.js";
export { checkHost, compareVersions, guardHost, type HostCheck, MIN_PI_VERSION } from "./host.js";
export {
	type GuardScope,
	type IdentityEvent,
	type IdentitySnapshot,
	initialIdentity,
	isContinuation,
	isSameScope,
	type LifecycleEventSource,
	LifecycleIdentity,
	nextIdentity,
	type StaleGuard,
	trackLifecycle,
} from "./identity.js";
export {
	type AcquireFailure,
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
export { type ArmedSubscription, createArmedSubscription } from "./subscription.js";
export {
	type EntryLookup,
	entriesSince,
	type WalkableEntry,
	type WalkOptions,
	walkBackFromLeaf,
} from "./walk.js";
