// The driver binds blobs only as Buffers; the shared codecs return plain Uint8Arrays, which this views without a copy.

export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
