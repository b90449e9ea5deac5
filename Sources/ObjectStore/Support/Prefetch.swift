import CPrefetch
import Predicates

/// Hints that start loading memory a loop will touch a few iterations
/// later, without waiting for it: a large save walks objects, values and
/// strings last touched long before, and otherwise stalls on each in turn.
///
/// Addresses are read from bits, retaining nothing (a retain would itself
/// wait for the memory). A wrong guess loads nothing useful but cannot
/// fault: a prefetch is only a hint. Tests check the guesses.
///
/// Kept because the benchmarks measured it (`make bench`, a. insert 200k
/// + save and d. import 100k JSON + save, where a save writes objects made
/// long before): the save of 100k imported people went from 255 to 229 ms
/// with the strings' hints and its end (letting go of the saved objects)
/// from 46 to 34 ms with the snapshots' (commits 255a809 and 89b0722).
/// A fetch of rows sorted by anything but their key loads each one's slot
/// in the identity map ahead (`RowPages.prefetch`, c. filter).
enum Prefetch {
    /// The header and element `index` (of `stride` bytes) of the array
    /// whose one word is at `array`: its storage object's address, the
    /// elements following the object's 32-byte header.
    @inline(__always)
    static func element(_ index: Int, stride: Int, ofArrayAt array: UnsafeRawPointer) {
        guard let storage = storageAddress(ofArrayAt: array) else { return }
        mrq_prefetch(storage)
        mrq_prefetch(storage + 32 + index * stride)
    }

    /// The storage object of the array whose one word is at `array` (or
    /// any object a reference at `array` refers to; nil for nil).
    @inline(__always)
    static func storageAddress(ofArrayAt array: UnsafeRawPointer) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: array.load(as: UInt.self))
    }

    /// `count` bytes from `address`, a cache line at a time.
    static func bytes(at address: UnsafeRawPointer, count: Int) {
        for offset in stride(from: 0, to: count + 63, by: 64) { mrq_prefetch(address + offset) }
    }

    /// The header of the object referred to by the reference (one word,
    /// nil as 0) at `reference`: its reference count, which a release or a
    /// uniqueness check reads.
    @inline(__always)
    static func object(at reference: UnsafeRawPointer) {
        guard let object = storageAddress(ofArrayAt: reference) else { return }
        mrq_prefetch(object)
    }

    /// The storage of each long string among `values`.
    static func strings(in values: [Value]) {
        values.withUnsafeBufferPointer { buffer in
            for i in buffer.indices {
                guard let storage = storageAddress(of: buffer.baseAddress! + i) else { continue }
                // The object's header, then its bytes.
                mrq_prefetch(storage)
                mrq_prefetch(storage + 32)
            }
        }
    }

    /// Where a long string `value` keeps its bytes (its storage object);
    /// nil for other values.
    ///
    /// A string is two words, the second its storage object when the
    /// string is native and not small (top four bits clear); a `Value`
    /// holding one starts with them.
    @inline(__always)
    static func storageAddress(of value: UnsafePointer<Value>) -> UnsafeRawPointer? {
        guard case .string = value.pointee else { return nil }
        let object = UnsafeRawPointer(value).load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self)
        guard object >> 60 == 0 else { return nil }
        return UnsafeRawPointer(bitPattern: object)
    }
}
