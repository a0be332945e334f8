/**
 * Shows a client-hosted terminal in VS Code's terminal panel through a Pseudoterminal: the output so
 * far, then the live stream. Input is not forwarded (the agent owns the process); closing the
 * panel terminal does not kill the command.
 */
import * as vscode from 'vscode';
import { inert } from '../common/untrustedText';
import type { TerminalManager } from '../terminals';
import type { TerminalView } from '../acp/session/types';

/**
 * Opens a read-only view of `terminalId`: live from `manager` while it still holds the terminal,
 * else (released) from `fallback`, the last output the session recorded.
 */
export function showTerminal(manager: TerminalManager, terminalId: string, fallback: TerminalView | undefined, title: string): vscode.Terminal {
  const write = new vscode.EventEmitter<string>();
  let sub: { dispose(): void } | undefined;
  const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');
  const pty: vscode.Pseudoterminal = {
    onDidWrite: write.event,
    open: () => {
      const live = manager.has(terminalId);
      const snap = live ? manager.snapshot(terminalId) : fallback;
      if (!snap) {
        write.fire('This terminal is no longer available.\r\n');
        return;
      }
      write.fire(`\x1b[2m$ ${snap.commandLine}   (cwd ${snap.cwd})\x1b[0m\r\n`);
      if (snap.truncated) write.fire('\x1b[2m… earlier output dropped (output limit)\x1b[0m\r\n');
      write.fire(crlf(snap.output));
      if (snap.exitStatus) write.fire(exitLine(snap.exitStatus));
      else if (live) {
        sub = manager.onData(terminalId, (text) => write.fire(crlf(text)));
        const done = manager.onDidChange((s) => {
          if (s.terminalId === terminalId && s.exitStatus) {
            write.fire(exitLine(s.exitStatus));
            done.dispose();
          }
        });
      }
    },
    close: () => {
      sub?.dispose();
      write.dispose();
    },
  };
  const terminal = vscode.window.createTerminal({ name: inert(title, { max: 80 }), pty, iconPath: new vscode.ThemeIcon('terminal') });
  terminal.show(true);
  return terminal;
}

function exitLine(e: { exitCode: number | null; signal: string | null }): string {
  return `\r\n\x1b[2m[process ${e.signal ? `killed by ${e.signal}` : `exited with code ${e.exitCode}`}]\x1b[0m\r\n`;
}
