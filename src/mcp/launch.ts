/**
 * The launcher of a forwarded stdio MCP server (`dist/mcp-launch.js`): an agent runs it as the
 * server's command, with one argument, the {@link LaunchSpec} of the approved definition; it starts
 * the approved command in the approved folder without the removed variables, hands it its own
 * stdin/stdout/stderr, passes termination signals on, and exits as the server exits. So the agent
 * runs exactly what the person approved, although ACP cannot say `cwd` or remove a variable.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { launchEnv, parseLaunchSpec, type LaunchSpec } from './launchSpec';

let spec: LaunchSpec;
try {
  spec = parseLaunchSpec(process.argv[2]);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}

const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: launchEnv(process.env, spec), stdio: 'inherit', shell: false });
child.once('error', (err) => {
  process.stderr.write(`mcp-launch: could not start ${spec.command} in ${spec.cwd ?? process.cwd()}: ${err.message}\n`);
  process.exit(127);
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
child.once('exit', (code, signal) => {
  // The shell's convention for a death by signal: 128 + its number.
  process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
});
