/**
 * The agent's answers to our requests, read the way the ACP schema asks. The SDK checks an agent's
 * requests and notifications (`session/update` included) against the schema before our handlers
 * see them, but hands the answers to our own requests over as they came. Here the fields we use
 * are read with the SDK's own generated schemas: lists the schema marks
 * `x-deserialize-skip-invalid-items` (config options, modes, auth methods, listed sessions) lose
 * only their bad items, and fields marked `x-deserialize-default-on-error` fall back to their
 * default. Every other field is kept exactly as the agent sent it (an unstable or extension field
 * the stable schema does not name is not stripped).
 *
 * Spec: ACP v1 schema 1.21 (`@agentclientprotocol/sdk` 2.4.0, schema/v1/schema.json). No `vscode`.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { acpSdk } from './sdk';

interface FieldSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
}

/**
 * `raw` with each of `fields` read by its schema in `shape`: a field the agent left out stays out;
 * one that cannot be read at all (only possible for a required list) is dropped.
 */
function lenient<T>(raw: unknown, shape: Record<string, unknown>, fields: readonly string[]): T {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw as T;
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const f of fields) {
    if (out[f] === undefined) continue;
    const parsed = (shape[f] as FieldSchema).safeParse(out[f]);
    if (parsed.success) out[f] = parsed.data;
    else delete out[f];
  }
  return out as T;
}

/** `initialize`: `authMethods` (skip-invalid) and `agentInfo` (default-on-error). */
export function initializeAnswer(raw: unknown): acp.InitializeResponse {
  return lenient(raw, acpSdk().zInitializeResponse.shape, ['authMethods', 'agentInfo']);
}

/** `session/new`: `modes` (its `availableModes` skip-invalid) and `configOptions` (skip-invalid). */
export function newSessionAnswer(raw: unknown): acp.NewSessionResponse {
  return lenient(raw, acpSdk().zNewSessionResponse.shape, ['modes', 'configOptions']);
}

/** `session/load` (may answer nothing at all): as {@link newSessionAnswer}. */
export function loadSessionAnswer(raw: unknown): acp.LoadSessionResponse | undefined {
  return raw == null ? undefined : lenient(raw, acpSdk().zLoadSessionResponse.shape, ['modes', 'configOptions']);
}

/** `session/resume`: as {@link newSessionAnswer}. */
export function resumeSessionAnswer(raw: unknown): acp.ResumeSessionResponse {
  return raw == null ? {} : lenient(raw, acpSdk().zResumeSessionResponse.shape, ['modes', 'configOptions']);
}

/** `session/set_config_option`: the full list of options, bad items skipped; none when it sent none. */
export function setConfigOptionAnswer(raw: unknown): acp.SessionConfigOption[] {
  const res = lenient<{ configOptions?: acp.SessionConfigOption[] }>(raw, acpSdk().zSetSessionConfigOptionResponse.shape, ['configOptions']);
  return Array.isArray(res?.configOptions) ? res.configOptions : [];
}

/** `session/list`: `sessions` (skip-invalid), `nextCursor` (default-on-error). */
export function listSessionsAnswer(raw: unknown): acp.ListSessionsResponse {
  const res = lenient<acp.ListSessionsResponse>(raw, acpSdk().zListSessionsResponse.shape, ['sessions', 'nextCursor']);
  return { ...res, sessions: Array.isArray(res?.sessions) ? res.sessions : [] };
}
