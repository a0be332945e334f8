/** Type declarations for `model-openai-responses.mjs` (the fake model server's OpenAI Responses dialect). */
import type { ServerResponse } from 'node:http';

/** Pause between two pieces of text in the "slow" scenario, in milliseconds. */
export declare const SLOW_PIECE_MS: number;
/** How many pieces the "slow" scenario streams (about SLOW_PIECES × SLOW_PIECE_MS in all). */
export declare const SLOW_PIECES: number;

/** A tool the agent offered: `custom` for freeform-input tools such as Codex's `apply_patch`. */
export interface ResponsesTool {
  name: string;
  schema?: unknown;
  custom: boolean;
}

/** What a request offered and how far the turn has come. */
export interface ResponsesSeen {
  tools: ResponsesTool[];
  /** Tool outputs after the person's last message. */
  toolResults: number;
  wantsJson: boolean;
}

/** The scripted model's move. */
export type ResponsesMove =
  | { type: 'tool'; name: string; input: unknown; custom?: boolean }
  | { type: 'text' | 'aux'; text: string };

export declare function readResponses(body: unknown): ResponsesSeen;
/** A patch in Codex's apply_patch format that creates `file` (absolute) with `content`. */
export declare function addFilePatch(file: string, content: string): string;
export declare function responsesMove(
  seen: ResponsesSeen,
  script: { scenario: string; workspace: string; fileName: string; fileContent: string; nextMove: (seen: ResponsesSeen & { scenario: string; workspace: string }) => ResponsesMove },
): ResponsesMove;
export declare function answerResponses(res: ServerResponse, body: unknown, move: ResponsesMove, pace?: { slow?: boolean }): void;
