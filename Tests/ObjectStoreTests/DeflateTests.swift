import Foundation
import Testing

@testable import ObjectStore

@Suite struct DeflateTests {
    static func sample(_ count: Int, seed: UInt64 = 7) -> Data {
        var state = seed
        return Data((0..<count).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            // Half text-like, half noise, so both literal and match paths run.
            return i % 2 == 0 ? UInt8(97 + (i / 7) % 26) : UInt8(truncatingIfNeeded: state >> 56)
        })
    }

    @Test(arguments: [0, 1, 100, 70_000, 300_000])
    func testRoundTrip(count: Int) throws {
        let data = Self.sample(count)
        let blob = Deflate.compress(data)
        #expect(try Deflate.decompress(blob) == data)
    }

    @Test func testRawStreamHasNoZlibHeader() throws {
        // A zlib stream starts 0x78; raw DEFLATE of "aaaa" starts with a
        // block header (final fixed block: 0x4b).
        let blob = Deflate.compress(Data("aaaa".utf8))
        #expect(blob.first == 0x4b)
    }

    @Test func testTruncatedStreamThrows() throws {
        let blob = Deflate.compress(Self.sample(20_000))
        for length in [0, 1, blob.count / 2, blob.count - 1] {
            #expect(throws: DeflateError.self, "cut at \(length)") {
                try Deflate.decompress(blob.prefix(length))
            }
        }
    }

    @Test func testTrailingBytesThrow() throws {
        let blob = Deflate.compress(Data("hello".utf8)) + Data([1, 2, 3])
        let error = #expect(throws: DeflateError.self) { try Deflate.decompress(blob) }
        #expect(error?.description == "3 bytes follow the end of the DEFLATE stream")
    }

    @Test func testCorruptStreamThrows() throws {
        // Block type 3 is reserved.
        let error = #expect(throws: DeflateError.self) { try Deflate.decompress(Data([0x07, 0x00])) }
        #expect(error?.description.contains("corrupt") == true)
    }

    @Test func testOutputIsBounded() throws {
        // 8 MiB of zeros deflate to about 8 KB; with a 1 MiB limit the
        // inflater stops at the limit instead of producing them all.
        let blob = Deflate.compress(Data(count: 8 << 20))
        #expect(blob.count < 20_000)
        let error = #expect(throws: DeflateError.self) { try Deflate.decompress(blob, limit: 1 << 20) }
        #expect(error?.description == "the model cache inflates to more than 1048576 bytes")
        #expect(try Deflate.decompress(blob, limit: 8 << 20).count == 8 << 20)
    }

    /// libdeflate inflates and zlib explains what it refuses: on every
    /// stream, sound or damaged, the two say the same (the same bytes, or
    /// both refuse). Streams: sound ones of many sizes, then each with
    /// bytes flipped, cut or added at seeded places.
    @Test func testLibdeflateAndZlibAgree() throws {
        var state: UInt64 = 0x5eed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % bound
        }
        var streams: [Data] = []
        for count in [0, 1, 7, 300, 5_000, 70_000, 270_000] {
            let blob = Deflate.compress(Self.sample(count, seed: UInt64(count)))
            streams.append(blob)
            for _ in 0..<40 {
                var damaged = blob
                switch next(3) {
                case 0 where !damaged.isEmpty:
                    let at = next(damaged.count)
                    damaged[damaged.startIndex + at] ^= UInt8(1 << next(8))
                case 1 where !damaged.isEmpty:
                    damaged = damaged.prefix(next(damaged.count))
                default:
                    damaged.append(UInt8(next(256)))
                }
                streams.append(damaged)
            }
        }
        var refused = 0
        for (index, stream) in streams.enumerated() {
            let fast = Result { try Deflate.inflate(stream, limit: 1 << 20) }
            let zlib = Result { try Deflate.zlibInflate(stream, limit: 1 << 20) }
            switch (fast, zlib) {
            case let (.success(a), .success(b)): #expect(a == b, "stream \(index): different bytes")
            case let (.failure(a), .failure(b)):
                refused += 1
                #expect("\(a)" == "\(b)", "stream \(index): libdeflate's refusal is explained by zlib")
            default: Issue.record("stream \(index): \(fast) against zlib's \(zlib)")
            }
        }
        #expect(refused > 50, "the damaged streams should mostly be refused (\(refused))")
    }

    @Test func testDefaultLimitIs64MiB() {
        #expect(Deflate.defaultLimit == 64 * 1024 * 1024)
    }
}
