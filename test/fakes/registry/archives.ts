/**
 * Archive writers for the registry tests: a minimal ustar writer (gzip via node:zlib) and a
 * stored-only zip writer. Written by hand rather than with `tar`/`zip` so a test can put in exactly
 * the member names a hostile archive would (`../x`, `/abs`, escaping symlinks), which the real
 * tools refuse to create, and so the tests do not depend on which tools are installed.
 *
 * Formats: POSIX ustar (https://pubs.opengroup.org/onlinepubs/9799919799/utilities/pax.html#tag_20_94_13_06)
 * and PKWARE APPNOTE.TXT sections 4.3.7, 4.3.12, 4.3.16 (https://pkware.cachefly.net/webdocs/casestudies/APPNOTE.TXT).
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';

/** One archive member. `mode` defaults to 0o644 for files, 0o755 for folders, 0o777 for symlinks. */
export type ArchiveEntry =
  | { type: 'file'; name: string; content: string | Buffer; mode?: number }
  | { type: 'dir'; name: string; mode?: number }
  | { type: 'symlink'; name: string; target: string };

/** The shell script the fake binary agent runs: it prints its arguments and FAKE_AGENT_MODE. */
export const FAKE_AGENT_SCRIPT = '#!/bin/sh\necho "fake binary agent args=$* mode=$FAKE_AGENT_MODE"\n';

/** The members of the fixture's `fake-binary-agent-2.1.0.tar.gz`; the script is not executable on purpose. */
export const FAKE_BINARY_ENTRIES: ArchiveEntry[] = [
  { type: 'dir', name: 'bin/' },
  { type: 'file', name: 'bin/fake-binary-agent', content: FAKE_AGENT_SCRIPT, mode: 0o644 },
  { type: 'file', name: 'README.txt', content: 'fake agent\n' },
];

/** Lowercase hex SHA-256 of `data`. */
export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

/** A gzip-compressed ustar archive of `entries`, with a fixed mtime so equal input gives equal bytes. */
export function tarGz(entries: ArchiveEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = e.type === 'file' ? Buffer.from(e.content) : Buffer.alloc(0);
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, 'utf8');
    h.write(octal(e.type === 'symlink' ? 0o777 : (e.mode ?? (e.type === 'dir' ? 0o755 : 0o644)), 8), 100, 'ascii');
    h.write(octal(0, 8), 108, 'ascii');
    h.write(octal(0, 8), 116, 'ascii');
    h.write(octal(body.length, 12), 124, 'ascii');
    h.write(octal(1_700_000_000, 12), 136, 'ascii');
    h.write(e.type === 'file' ? '0' : e.type === 'dir' ? '5' : '2', 156, 'ascii');
    if (e.type === 'symlink') h.write(e.target, 157, 100, 'utf8');
    h.write('ustar\0', 257, 'ascii');
    h.write('00', 263, 'ascii');
    // The checksum is computed with its own field read as eight spaces.
    h.write('        ', 148, 'ascii');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
    blocks.push(h, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks));
}

/** A zip of `entries`, stored without compression, with Unix modes in the external attributes. */
export function zip(entries: ArchiveEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = e.type === 'file' ? Buffer.from(e.content) : e.type === 'symlink' ? Buffer.from(e.target) : Buffer.alloc(0);
    const mode = e.type === 'file' ? 0o100000 | (e.mode ?? 0o644) : e.type === 'dir' ? 0o40000 | (e.mode ?? 0o755) : 0o120777;
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4); // made by: Unix, so unzip honours the mode bits
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
