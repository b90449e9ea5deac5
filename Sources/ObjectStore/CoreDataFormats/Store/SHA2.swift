import CSHA256
import Foundation

// SHA-256 and SHA-512 (FIPS 180-4), for Core Data's version hashes and their
// digest. Foundation on Linux has no CryptoKit, and the inputs are a few
// hundred bytes, so one-shot functions over a byte array are enough.

/// SHA-256 of `message`: 32 bytes.
///
/// A model's version hashes take two of these per property and one per
/// entity, each of a few dozen bytes: the message's whole blocks are read
/// in place and only its last one or two are padded, in a buffer on the
/// stack, so a hash allocates nothing but its result. The blocks are
/// compressed by the CPU's SHA instructions where it has them (`CSHA256`),
/// in Swift otherwise: opening the corpus's largest model (`mrq-bench`'s
/// w row) hashes some 1,200 blocks, a tenth of its time in Swift.
func sha256(_ message: [UInt8]) -> [UInt8] { sha256(message, inHardware: sha256InHardware) }

/// Whether this CPU compresses SHA-256 blocks itself.
let sha256InHardware = mrq_sha256_hardware() != 0

/// SHA-256 of `message`, compressed by the CPU's instructions or in Swift
/// as asked (the tests compare the two; `inHardware` must be false where
/// `sha256InHardware` is).
func sha256(_ message: [UInt8], inHardware: Bool) -> [UInt8] {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 8) { state in
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
    message.withUnsafeBufferPointer { bytes in
        for (index, word) in sha256Initial.enumerated() { state[index] = word }
        let compress = inHardware ? sha256BlocksInHardware : sha256BlocksInSwift
        let whole = bytes.count / 64
        if whole > 0, let base = bytes.baseAddress { compress(state, base, whole) }
        // The rest, a 1 bit, zeros, and the length in bits (big-endian,
        // 8 bytes): one block, or two when the rest leaves no room.
        let rest = bytes.count - whole * 64
        let blocks = rest + 9 <= 64 ? 1 : 2
        tail.initialize(repeating: 0)
        for i in 0..<rest { tail[i] = bytes[whole * 64 + i] }
        tail[rest] = 0x80
        let bits = UInt64(bytes.count) &* 8
        for i in 0..<8 { tail[64 * blocks - 1 - i] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i))) }
        if let base = UnsafeBufferPointer(tail).baseAddress { compress(state, base, blocks) }
        return [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
            for index in 0..<32 { digest[index] = UInt8(truncatingIfNeeded: state[index / 4] >> (24 - 8 * (index % 4))) }
            count = 32
        }
    } }
    }
}

private let sha256Initial: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
]

private func sha256BlocksInHardware(_ state: UnsafeMutableBufferPointer<UInt32>, _ data: UnsafePointer<UInt8>,
                                    _ blocks: Int) {
    guard let words = state.baseAddress else { return }
    sha256Constants.withUnsafeBufferPointer { k in
        if let k = k.baseAddress { mrq_sha256_blocks(words, data, blocks, k) }
    }
}

/// FIPS 180-4's compression of `blocks` 64-byte blocks at `data` into
/// `state`. Over buffers: every index below is in range by construction,
/// and checking each one costs about as much as the rounds.
private func sha256BlocksInSwift(_ state: UnsafeMutableBufferPointer<UInt32>, _ data: UnsafePointer<UInt8>,
                                 _ blocks: Int) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
    sha256Constants.withUnsafeBufferPointer { k in
        for block in 0..<blocks {
            let start = data + 64 * block
            for t in 0..<16 {
                let i = 4 * t
                w[t] = UInt32(start[i]) << 24 | UInt32(start[i + 1]) << 16 | UInt32(start[i + 2]) << 8
                    | UInt32(start[i + 3])
            }
            for t in 16..<64 {
                let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (state[0], state[1], state[2], state[3],
                                             state[4], state[5], state[6], state[7])
            // Eight rounds at a time, the eight working variables taking
            // each other's places by name rather than being moved down one
            // each round (FIPS 180-4's shuffle, as SHA-256 is usually
            // written).
            for t in stride(from: 0, to: 64, by: 8) {
                sha256Round(a, b, c, &d, e, f, g, &hh, k[t] &+ w[t])
                sha256Round(hh, a, b, &c, d, e, f, &g, k[t + 1] &+ w[t + 1])
                sha256Round(g, hh, a, &b, c, d, e, &f, k[t + 2] &+ w[t + 2])
                sha256Round(f, g, hh, &a, b, c, d, &e, k[t + 3] &+ w[t + 3])
                sha256Round(e, f, g, &hh, a, b, c, &d, k[t + 4] &+ w[t + 4])
                sha256Round(d, e, f, &g, hh, a, b, &c, k[t + 5] &+ w[t + 5])
                sha256Round(c, d, e, &f, g, hh, a, &b, k[t + 6] &+ w[t + 6])
                sha256Round(b, c, d, &e, f, g, hh, &a, k[t + 7] &+ w[t + 7])
            }
            state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
            state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= hh
        }
    } }
}

/// One SHA-256 round: `d` and `h` take their new values, the other six
/// stay (the caller renames them for the next round). `kw` is the round's
/// constant plus its message word.
@inline(__always)
private func sha256Round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                         _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32) {
    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
    let choice = (e & f) ^ (~e & g)
    let t1 = h &+ s1 &+ choice &+ kw
    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
    let majority = (a & b) ^ (a & c) ^ (b & c)
    d = d &+ t1
    h = t1 &+ s0 &+ majority
}

/// SHA-512 of `message`: 64 bytes.
func sha512(_ message: [UInt8]) -> [UInt8] {
    var h: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179
    )
    let padded = SHA2Padding.pad(message, blockSize: 128, lengthSize: 16)
    var w = [UInt64](repeating: 0, count: 80)
    let k = sha512Constants
    padded.withUnsafeBufferPointer { bytes in
        for block in stride(from: 0, to: bytes.count, by: 128) {
            for t in 0..<16 {
                var word: UInt64 = 0
                for i in block + 8 * t ..< block + 8 * t + 8 { word = word << 8 | UInt64(bytes[i]) }
                w[t] = word
            }
            for t in 16..<80 {
                let s0 = w[t - 15].rotatedRight(1) ^ w[t - 15].rotatedRight(8) ^ (w[t - 15] >> 7)
                let s1 = w[t - 2].rotatedRight(19) ^ w[t - 2].rotatedRight(61) ^ (w[t - 2] >> 6)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = h
            for t in 0..<80 {
                let s1 = e.rotatedRight(14) ^ e.rotatedRight(18) ^ e.rotatedRight(41)
                let choice = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ choice &+ k[t] &+ w[t]
                let s0 = a.rotatedRight(28) ^ a.rotatedRight(34) ^ a.rotatedRight(39)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }
    return SHA2Padding.bigEndian([h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7])
}

private enum SHA2Padding {
    /// The message, a 1 bit, zeros, and its length in bits (big-endian, in
    /// `lengthSize` bytes), to a multiple of `blockSize` bytes.
    static func pad(_ message: [UInt8], blockSize: Int, lengthSize: Int) -> [UInt8] {
        var padded = message
        padded.append(0x80)
        let zeros = (blockSize - (padded.count + lengthSize) % blockSize) % blockSize
        padded.append(contentsOf: repeatElement(0, count: zeros))
        // Messages here are far below 2^61 bytes: the bit length fits in 64
        // bits, and the upper bytes of a 128-bit length are zero.
        let bits = UInt64(message.count) &* 8
        padded.append(contentsOf: repeatElement(0, count: lengthSize - 8))
        padded += bigEndian([bits])
        return padded
    }

    /// The words' bytes, most significant first: written into one array
    /// of the right size (a model's version hashes take one per property,
    /// and a `flatMap` of `map`s allocated an array per word).
    static func bigEndian<Word: FixedWidthInteger>(_ words: [Word]) -> [UInt8] {
        let size = Word.bitWidth / 8
        return [UInt8](unsafeUninitializedCapacity: words.count * size) { buffer, count in
            for (index, word) in words.enumerated() {
                for byte in 0..<size {
                    buffer[index * size + byte] = UInt8(truncatingIfNeeded: word >> (8 * (size - 1 - byte)))
                }
            }
            count = words.count * size
        }
    }
}

// Concrete rather than generic: unspecialized generics make debug builds
// (the tests) many times slower.
extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}

extension UInt64 {
    fileprivate func rotatedRight(_ count: UInt64) -> UInt64 { (self >> count) | (self << (64 - count)) }
}

/// The first 32 bits of the fractional parts of the cube roots of the first
/// 64 primes.
private let sha256Constants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
]

/// The first 64 bits of the fractional parts of the cube roots of the first
/// 80 primes.
private let sha512Constants: [UInt64] = [
    0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc,
    0x3956_c25b_f348_b538, 0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118,
    0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe, 0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2,
    0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235, 0xc19b_f174_cf69_2694,
    0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
    0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5,
    0x983e_5152_ee66_dfab, 0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4,
    0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725, 0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70,
    0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed, 0x5338_0d13_9d95_b3df,
    0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
    0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30,
    0xd192_e819_d6ef_5218, 0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8,
    0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53, 0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8,
    0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373, 0x682e_6ff3_d6b2_b8a3,
    0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
    0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b,
    0xca27_3ece_ea26_619c, 0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178,
    0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6, 0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b,
    0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc, 0x431d_67c4_9c10_0d4c,
    0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
]
