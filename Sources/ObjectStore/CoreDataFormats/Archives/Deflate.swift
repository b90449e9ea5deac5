import CDeflate
import CZlib
import Foundation

/// Raw DEFLATE (RFC 1951, no zlib or gzip header), as Core Data stores its
/// model cache in `Z_MODELCACHE.Z_CONTENT` (Apple's `Z_MODELCACHE` is
/// zlib's raw mode, window bits -15).
///
/// ```swift
/// let blob = Deflate.compress(archive)
/// let again = try Deflate.decompress(blob)   // == archive
/// ```
package enum Deflate {
    /// The most `decompress` produces unless told otherwise: real model
    /// caches inflate to well under a megabyte, so a blob that claims more
    /// is hostile (a few kilobytes of DEFLATE can expand to gigabytes).
    package static let defaultLimit = 64 << 20

    /// Inflates a raw DEFLATE stream.
    ///
    /// Throws when the stream is corrupt, when it ends before its final
    /// block, when bytes follow its end, and when its output would pass
    /// `limit` bytes.
    package static func decompress(_ data: Data, limit: Int = defaultLimit) throws -> Data {
        Data(try inflate(data, limit: limit))
    }

    /// `decompress(_:limit:)`'s bytes, as the property-list reader takes
    /// them (no copy to `Data` and back).
    ///
    /// libdeflate inflates (a model cache in about half zlib's time) into
    /// a buffer of a guessed size, doubled while it is too small, up to
    /// `limit`; a stream it refuses, one with bytes after its end and one
    /// that needs more than `limit` go through zlib's reading, which says
    /// where and why.
    static func inflate(_ data: Data, limit: Int = defaultLimit) throws -> [UInt8] {
        let input = [UInt8](data)
        guard let decompressor = libdeflate_alloc_decompressor() else { return try zlibInflate(data, limit: limit) }
        defer { libdeflate_free_decompressor(decompressor) }
        // Model caches inflate to about twice their size.
        var capacity = Swift.min(limit, Swift.max(64 * 1024, input.count.multipliedReportingOverflow(by: 4).partialValue))
        while true {
            var consumed = 0
            var result = LIBDEFLATE_BAD_DATA
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                var produced = 0
                result = input.withUnsafeBytes { source in
                    libdeflate_deflate_decompress_ex(decompressor, source.baseAddress, source.count,
                                                     buffer.baseAddress, buffer.count, &consumed, &produced)
                }
                // Only what libdeflate wrote counts, and only on success.
                count = result == LIBDEFLATE_SUCCESS ? produced : 0
            }
            if result == LIBDEFLATE_SUCCESS && consumed == input.count { return output }
            guard result == LIBDEFLATE_INSUFFICIENT_SPACE, capacity < limit else { break }
            capacity = Swift.min(limit, capacity.multipliedReportingOverflow(by: 2).partialValue)
        }
        return try zlibInflate(data, limit: limit)
    }

    /// zlib's inflating, 64 KiB at a time: the reading whose errors say
    /// what is wrong with a stream.
    static func zlibInflate(_ data: Data, limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard mrq_inflate_init(&stream, -MAX_WBITS) == Z_OK else {
            throw DeflateError("zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let input = [UInt8](data)
        return try input.withUnsafeBufferPointer { inputBuffer -> [UInt8] in
            stream.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    throw DeflateError("the model cache inflates to more than \(limit) bytes")
                }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END:
                    guard stream.avail_in == 0 else {
                        throw DeflateError("\(stream.avail_in) bytes follow the end of the DEFLATE stream")
                    }
                    return output
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw DeflateError("the DEFLATE stream is truncated after \(inputBuffer.count) bytes")
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    let at = inputBuffer.count - Int(stream.avail_in)
                    throw DeflateError("the DEFLATE stream is corrupt at byte \(at): \(reason)")
                }
            }
        }
    }

    /// Deflates `data` as raw DEFLATE at zlib's default level.
    package static func compress(_ data: Data) -> Data {
        var stream = z_stream()
        // Initialising with constant, valid arguments fails only when zlib
        // cannot allocate its state.
        guard mrq_deflate_init(&stream, Z_DEFAULT_COMPRESSION, -MAX_WBITS) == Z_OK else {
            preconditionFailure("zlib could not start deflating")
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let written = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer -> Int in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                // The output holds deflateBound bytes, so one call finishes.
                let status = CZlib.deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "zlib did not finish in deflateBound bytes")
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Data(output[0..<written])
    }
}

/// A DEFLATE stream that cannot be inflated, and why.
package struct DeflateError: Error, CustomStringConvertible, Equatable {
    package let description: String
    init(_ description: String) { self.description = description }
}
