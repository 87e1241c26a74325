/**
 * `@pi-lifecycle/lifecycle-kit/testing`: a scripted-session harness on Pi's real AgentSession and
 * pi-ai's faux provider, plus small helpers for deterministic lifecycle tests.
 */
export { type CleanupRegistrar, setTestCleanup } from "./cleanup.js";
export {
	type CaptureConsoleOptions,
	type ConsoleCapture,
	type ConsoleStream,
	captureConsole,
} from "./console-capture.js";
export { type Deferred, deferred, flushMicrotasks } from "./deferred.js";
export { createDialogStub, type DialogStub, type StubDialog } from "./dialog-stub.js";
export {
	type DynamicStep,
	lengthStop,
	overflowError,
	providerError,
	reply,
	retryableError,
	type ToolCallSpec,
	toolCall,
	toolCalls,
} from "./faux-steps.js";
export { messageText, requestTexts } from "./inspect.js";
export { failSessionWrites, type LocalFaultInjection, withTmpWriteFaults } from "./local-faults.js";
export {
	checkPureImports,
	type ImportViolation,
	type PurityOptions,
	type PurityReport,
	runtimeImports,
} from "./purity.js";
export { RECORDED_EVENTS, type RecordedEvent } from "./recorder.js";
export {
	createScriptedSession,
	type RecordedRequest,
	type ScriptedSession,
	type ScriptedSessionOptions,
} from "./scripted-session.js";
export {
	type CustomMessageRecord,
	customEntries,
	customMessages,
	type SettledRun,
	type WaitOptions,
	waitForIdle,
	waitForRun,
} from "./session-waits.js";
