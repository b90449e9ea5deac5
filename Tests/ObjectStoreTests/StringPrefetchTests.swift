import Foundation
@testable import ObjectStore
import Predicates
import Testing

/// The save prefetches long strings by reading their storage address from
/// a value's bits (`Prefetch.storageAddress`). The guess must name the
/// storage a string's own bytes live in, and nothing for other values:
/// if the runtime's layout ever changes, this fails where the prefetch
/// would quietly stop helping.
@Suite struct StringPrefetchTests {
    @Test func longNativeStringsAreFoundWhereTheirBytesLive() {
        for text in [String(repeating: "a", count: 16), String(repeating: "é", count: 40), "first.last.\(1234)@example.com",
                     String(repeating: "x", count: 10) + String(repeating: "y", count: 10)] {
            var value = Value.string(text)
            let guessed = withUnsafePointer(to: &value) { Prefetch.storageAddress(of: $0) }
            let bytes: UnsafeRawPointer? = text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
            #expect(guessed != nil, "a long string: \(text)")
            if let guessed, let bytes {
                // The bytes follow the storage object's header.
                #expect(bytes - guessed == 32, "\(text)")
            }
        }
    }

    /// Small strings live inside the value; literals in the program's
    /// constant data, with no storage object (and never out of reach for
    /// long: nothing to prefetch).
    @Test func otherValuesGiveNoAddress() {
        let values: [Value] = [.string(""), .string("short"), .string("fifteen bytes!!"), .string("a literal longer than fifteen bytes"), .int(1 << 62), .double(1.5),
                               .bool(true), .null, .date(Date()), .data(Data(repeating: 1, count: 64)), .uuid(UUID())]
        for var value in values {
            #expect(withUnsafePointer(to: &value) { Prefetch.storageAddress(of: $0) } == nil, "\(value)")
        }
    }

    /// A save loads each snapshot's list of values ahead of letting go of
    /// it, reading the list's address from the snapshot's bits.
    @Test func aSnapshotsListOfValuesIsFoundFromItsBits() throws {
        let model = try TestModels.people()
        let person = try #require(model.entity(named: "Person"))
        var snapshot = Snapshot(id: ObjectID.temporary(for: person), version: 1,
                                values: person.attributes.indices.map { .int(Int64($0)) }, links: [])
        let list = withUnsafePointer(to: &snapshot) { StoreChanges.valuesList(of: $0) }
        let first = try #require(snapshot.values.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) })
        #expect(first - list == 32)
    }

    /// The identity map loads a slot ahead from its page's address, read
    /// from the bits of the page's array; a sweep loads objects' headers
    /// from the bits of their slots.
    @Test func aPagesSlotAndAnObjectAreFoundFromTheirBits() throws {
        let person = try #require(try TestModels.people().entity(named: "Person"))
        let object = ManagedObject(entity: person, insertInto: nil)
        var page = ContiguousArray<ManagedObject?>(repeating: nil, count: RowPages.pageSize)
        page[700] = object
        let storage = try #require(withUnsafePointer(to: &page) { Prefetch.storageAddress(ofArrayAt: $0) })
        let slot = try #require(page.withUnsafeBufferPointer { $0.baseAddress.map { UnsafeRawPointer($0 + 700) } })
        #expect(storage + 32 + 700 * MemoryLayout<ManagedObject?>.stride == slot)
        let found = page.withUnsafeBufferPointer { Prefetch.storageAddress(ofArrayAt: UnsafeRawPointer($0.baseAddress! + 700)) }
        #expect(found == UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
        #expect(page.withUnsafeBufferPointer { Prefetch.storageAddress(ofArrayAt: UnsafeRawPointer($0.baseAddress! + 1)) } == nil)
    }
}
