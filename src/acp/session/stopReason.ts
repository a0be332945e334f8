/**
 * How a turn ended, in words a person reads (ACP `StopReason`): the thread's end-of-turn line and
 * the notification of a turn that ended out of sight say the same. Pure, shared with the webview.
 */

/** How a turn ended, in words (ACP `StopReason`). */
export function describeStopReason(reason: string): { text: string; tone: 'done' | 'warn' | 'muted'; icon: string } {
  switch (reason) {
    case 'end_turn':
      return { text: 'Turn complete', tone: 'muted', icon: 'check' };
    case 'refusal':
      return { text: 'Refused: the agent refused; this prompt is dropped from its context', tone: 'warn', icon: 'circle-slash' };
    case 'cancelled':
      return { text: 'Cancelled', tone: 'muted', icon: 'debug-stop' };
    case 'max_tokens':
      return { text: 'Stopped: the agent reached its token limit', tone: 'warn', icon: 'warning' };
    case 'max_turn_requests':
      return { text: 'Stopped: the agent reached its limit of model requests for one turn', tone: 'warn', icon: 'warning' };
    default:
      return { text: `Stopped: ${reason}`, tone: 'warn', icon: 'warning' };
  }
}

/** How a turn ended, as a clause after the agent's name: "finished its turn", "stopped at its token limit". */
export function turnEndedClause(reason: string): string {
  switch (reason) {
    case 'end_turn':
      return 'finished its turn';
    case 'refusal':
      return 'refused the prompt';
    case 'cancelled':
      return 'stopped the turn';
    case 'max_tokens':
      return 'stopped at its token limit';
    case 'max_turn_requests':
      return 'stopped at its limit of model requests for one turn';
    default:
      return `stopped (${reason.replace(/_/g, ' ')})`;
  }
}
