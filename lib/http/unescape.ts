/**
 * Decodes a long JSON string literal that holds escapes straight from the
 * body bytes, with a small WebAssembly module (unescape.wat: 16 bytes at a
 * time with wasm SIMD, escapes in scalar code). The literal is copied into
 * the module's memory once, decoded there, and the string made from the
 * output with one slice: about a third of the cost of the same loop in
 * JavaScript (docs/performance.md).
 */
import { isUtf8 } from 'node:buffer';
import { UNESCAPE_WASM_BASE64 } from './unescape-wasm';

// The few WebAssembly names used here (TypeScript declares them only with the DOM library).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface UnescapeExports {
  memory: WasmMemory;
  flags: { value: number };
  decode(input: number, length: number, output: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

/** Where the literal goes: bytes below are the module's escape table. */
const INPUT = 512;
const PAGE = 64 * 1024;
/** Literals up to this size are decoded in one instance kept for reuse (fresh
 *  memory costs page faults on every body; its memory stays at most about
 *  twice this); longer ones in an instance of their own, dropped after. */
const MAX_KEPT_LITERAL_BYTES = 2 * 1024 * 1024;

interface Decoder {
  exports: UnescapeExports;
  /** The module's memory as a Buffer (replaced whenever the memory grows). */
  bytes: Buffer;
}

function compile(): object | undefined {
  try {
    return new WebAssembly.Module(Buffer.from(UNESCAPE_WASM_BASE64, 'base64'));
  } catch {
    // No WebAssembly (node --jitless): escaped long strings stay with JSON.parse.
    return undefined;
  }
}
const wasmModule = compile();
let kept: Decoder | undefined;

function instantiate(): Decoder {
  const exports = new WebAssembly.Instance(wasmModule!).exports as UnescapeExports;
  return { exports, bytes: Buffer.from(exports.memory.buffer) };
}

/**
 * The value of the string literal whose content is body[start, end) (a
 * backslash in it), decoded as JSON.parse would. Undefined for whatever
 * JSON.parse must judge: a malformed escape, a lone surrogate (not UTF-8), a
 * raw control byte, raw bytes that are not valid UTF-8 (not reproduced byte
 * for byte here); and when this Node has no WebAssembly.
 */
export function decodeEscapedString(body: Buffer, start: number, end: number): string | undefined {
  if (!wasmModule) return undefined;
  const length = end - start;
  const decoder = length <= MAX_KEPT_LITERAL_BYTES ? (kept ??= instantiate()) : instantiate();
  // Output after the input; the module may touch 16 bytes past the end of each.
  const output = INPUT + ((length + 31) & ~15);
  const needed = output + length + 16;
  if (decoder.bytes.length < needed) {
    try {
      decoder.exports.memory.grow(Math.ceil((needed - decoder.bytes.length) / PAGE));
    } catch {
      return undefined; // no memory for it here: JSON.parse decides
    }
    decoder.bytes = Buffer.from(decoder.exports.memory.buffer);
  }
  const { bytes } = decoder;
  bytes.set(body.subarray(start, end), INPUT);
  const written = decoder.exports.decode(INPUT, length, output);
  if (written < 0) return undefined;
  const flags = decoder.exports.flags.value;
  // No raw byte >= 0x80 and no escape written as several bytes: every byte is one character.
  if (flags === 0) return bytes.toString('latin1', output, output + written);
  // Raw non-ASCII: valid UTF-8 decodes the same in pieces as in the whole body;
  // invalid bytes (replaced by U+FFFD) are left to the plain road's decoding.
  if ((flags & 1) !== 0 && !isUtf8(body.subarray(start, end))) return undefined;
  return bytes.toString('utf8', output, output + written);
}
