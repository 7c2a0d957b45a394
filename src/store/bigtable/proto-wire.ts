/**
 * The protobuf wire format, as far as Bigtable's data API needs it: varints (int64 included, negatives as ten bytes),
 * length-delimited bytes, strings and messages. Hand-written so that the client needs no protobuf runtime, no .proto
 * files and no generated code for the dozen messages it sends and reads.
 */

export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];

  /** A varint field (int32, int64, bool); 0 and false are left out, as proto3 leaves defaults out. */
  varint(field: number, value: number | bigint | boolean): this {
    const v = typeof value === 'boolean' ? (value ? 1n : 0n) : BigInt(value);
    if (v === 0n) return this;
    this.parts.push(varintBytes(field * 8), varintBytes(BigInt.asUintN(64, v)));
    return this;
  }

  /** A length-delimited field: bytes, a UTF-8 string, or an encoded message (written even when empty). */
  bytes(field: number, value: Uint8Array | string): this {
    const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.parts.push(varintBytes(field * 8 + 2), varintBytes(b.length), b);
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** One field as read: a varint's value, or a length-delimited field's bytes (a view into the message). */
export type ProtoField =
  | { readonly field: number; readonly wire: 0; readonly value: number }
  | { readonly field: number; readonly wire: 2; readonly bytes: Buffer };

/** The fields of a message in order; fixed32/64 fields are skipped (Bigtable's responses we read have none we use). */
export function* protoFields(message: Buffer): Generator<ProtoField> {
  let pos = 0;
  const next = (): number => {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= message.length) throw new Error('protobuf: the message ends inside a varint');
      const b = message[pos++]!;
      v += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return v;
      scale *= 128;
    }
    throw new Error('protobuf: a varint runs over 10 bytes');
  };
  while (pos < message.length) {
    const tag = next();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) yield { field, wire, value: next() };
    else if (wire === 2) {
      const length = next();
      if (pos + length > message.length) throw new Error(`protobuf: field ${field} runs past the message's end`);
      yield { field, wire, bytes: message.subarray(pos, pos + length) };
      pos += length;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`protobuf: field ${field} has wire type ${wire}, which Bigtable's messages do not use`);
  }
}

function varintBytes(value: number | bigint): Uint8Array {
  let v = BigInt(value);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}
