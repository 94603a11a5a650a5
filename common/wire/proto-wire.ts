/**
 * The protobuf wire format, just enough to write the few requests and read the few responses the CLI's
 * quick reads need (client/quick-read/) without loading Temporal's whole protobuf root, which costs a CLI
 * start about a third of its time. Unknown fields are skipped, as protobuf readers must.
 */

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** Writes fields in the order given (what protobufjs does too). */
export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  private varint(value: number): void {
    const out: number[] = [];
    let v = value;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wireType: 0 | 2): void {
    this.varint(field * 8 + wireType);
  }

  /** A varint field (int32, enum, bool); zero is left out, as proto3 does. */
  uint(field: number, value: number): this {
    if (value) {
      this.tag(field, 0);
      this.varint(value);
    }
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  /** A string field; the empty string is left out, as proto3 does. */
  string(field: number, value: string | undefined): this {
    return value ? this.bytes(field, utf8.encode(value)) : this;
  }

  /** An embedded message, written even when empty (the field is then present). */
  message(field: number, write: (w: ProtoWriter) => unknown): this {
    const inner = new ProtoWriter();
    write(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** One field as read: its number, and its value (a number for varints, bytes for length-delimited fields). */
export interface ProtoField {
  field: number;
  /** Set for varint fields (values beyond 2^53 lose precision: none we read come near). */
  uint?: number;
  /** Set for length-delimited fields (strings, bytes, messages). */
  bytes?: Uint8Array;
}

/** Every field of a message, in order; fixed32/64 fields are skipped, groups refused. */
export function* readFields(buf: Uint8Array): Generator<ProtoField> {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= buf.length) throw new Error('Truncated protobuf message.');
      const b = buf[at++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    switch (key & 7) {
      case 0:
        yield { field, uint: varint() };
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        const n = varint();
        if (at + n > buf.length) throw new Error('Truncated protobuf message.');
        yield { field, bytes: buf.subarray(at, at + n) };
        at += n;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new Error(`Unsupported protobuf wire type ${key & 7}.`);
    }
  }
}

export const readString = (bytes: Uint8Array | undefined): string => (bytes ? text.decode(bytes) : '');

/** A `map<string, V>` entry (key 1, value 2). */
export function readMapEntry(bytes: Uint8Array): { key: string; value: Uint8Array } {
  let key = '';
  let value: Uint8Array = new Uint8Array(0);
  for (const f of readFields(bytes)) {
    if (f.field === 1) key = readString(f.bytes);
    else if (f.field === 2 && f.bytes) value = f.bytes;
  }
  return { key, value };
}
