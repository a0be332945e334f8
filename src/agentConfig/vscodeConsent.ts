/**
 * The editor side of the start gate for a repository's agent configuration: consents kept in the
 * workspace's state (by content hash), and the question asked as a document holding every part
 * whole, opened beside, followed by a modal dialog.
 */
import * as vscode from 'vscode';
import { text } from '../common/untrustedText';
import type { ConsentAnswer, ConsentPort } from './gate';

const KEY = 'agentSwitchboard.agentConfigConsent';
/** Hashes kept per workspace; the oldest go first (a changed file asks again anyway). */
const MAX_KEPT = 200;

/** A {@link ConsentPort} over `state` (the workspace's `Memento`). */
export function vscodeConsentPort(state: vscode.Memento): ConsentPort {
  const kept = () => {
    const v = state.get<unknown>(KEY);
    return Array.isArray(v) ? v.filter((h): h is string => typeof h === 'string') : [];
  };
  return {
    allowed: (hash) => kept().includes(hash),
    remember: async (hash) => {
      await state.update(KEY, [...kept().filter((h) => h !== hash), hash].slice(-MAX_KEPT));
    },
    ask: async (q) => {
      // The document is the prompt's body: every part whole, so the dialog itself lists nothing it could cut.
      const doc = await vscode.workspace.openTextDocument({ content: q.text, language: 'markdown' });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: false });
      const allow = vscode.l10n.t('Allow Them for This Workspace');
      // When nothing can be switched off, the button says the parts act: "without" would be untrue.
      const without =
        q.withoutLeaves >= q.parts
          ? vscode.l10n.t('Start Once With Them (None Can Be Switched Off)')
          : q.withoutLeaves
            ? vscode.l10n.t('Start Without the Parts That Can Be Switched Off')
            : vscode.l10n.t('Start Without Them');
      const choices = q.canAllow ? [without, allow] : [without];
      const detail = [
        vscode.l10n.t('{0} part(s) in {1} file(s); every one is shown whole in the document opened beside, with what it does.', String(q.parts), String(q.files.length)),
        q.withoutLeaves ? vscode.l10n.t('{0} of them cannot be switched off for this agent: they act even if you start without them (the document says which).', String(q.withoutLeaves)) : vscode.l10n.t('Starting without them switches all of them off.'),
        q.canAllow ? vscode.l10n.t('Allowing keeps them allowed in this workspace until any of these files changes.') : vscode.l10n.t('Not everything can be shown, so it cannot be allowed.'),
      ].join('\n\n');
      const picked = await vscode.window.showWarningMessage(
        text`${q.agentName}: this repository ships configuration that makes the agent run commands or skip asking for permission.`,
        { modal: true, detail },
        ...choices,
      );
      const answer: ConsentAnswer = picked === allow ? 'allow' : picked === without ? 'without' : 'cancel';
      return answer;
    },
  };
}
