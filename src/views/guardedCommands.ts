/**
 * Registration of the commands that act (answer, approve, grant, start, run, send, write, delete)
 * so that a `command:` link cannot drive them with arguments (issue 16, finding 1). The rules are
 * in src/common/commandArgs.ts; this is the thin `vscode` side of them.
 */
import * as vscode from 'vscode';
import { registerCommand } from '../activation/vscodeRegistry';
import { argumentShape, classifyCall, vouch } from '../common/commandArgs';
import { text } from '../common/untrustedText';

/** Options of {@link registerGuardedCommand}. */
export interface GuardOptions<R> {
  /** The command is run from tree items: an issued tree node is a valid first argument. */
  nodes?: boolean;
  /** What a refused call returns (e.g. `false` for answerPermission). */
  refused?: R;
}

/**
 * Registers command `id` whose handler sees only arguments that cannot have come from a link: none
 * (the person runs it from the palette or a view title; the handler then asks or picks), an issued
 * tree node (`nodes`), or the arguments of a vouched call ({@link runVouched}, the API's
 * `runCommand`). Any other call is refused with a warning that names the command, and returns
 * `options.refused`.
 */
export function registerGuardedCommand<R>(id: string, handler: (...args: unknown[]) => R, options: GuardOptions<R> = {}): vscode.Disposable {
  return registerCommand(id, (...raw: unknown[]) => {
    const call = classifyCall(raw, options.nodes);
    if (call.origin === 'refused') {
      void vscode.window.showWarningMessage(text`Agent Switchboard did not run ${id}: ${call.reason}. Run it from its view or the Command Palette. (It was given: ${argumentShape(raw)}.)`);
      return options.refused;
    }
    return handler(...call.args);
  });
}

/**
 * Runs one of our commands with arguments as trusted in-process code (the API, the extension
 * itself): the arguments travel in a vouched envelope that only this process can make.
 * @throws Error for a command outside `agentSwitchboard.*`.
 */
export function runVouched<T = unknown>(id: string, args: readonly unknown[]): Thenable<T> {
  if (!id.startsWith('agentSwitchboard.')) throw new Error(`runCommand runs Agent Switchboard commands only, not ${id}.`);
  return vscode.commands.executeCommand<T>(id, vouch(args));
}
