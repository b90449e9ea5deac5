import Foundation
import Testing

@testable import ObjectStore

/// Damaged model caches and archives: truncated, bit-flipped, and with
/// their objects' fields swapped around. Each must throw a `ModelError` or
/// read as some model; none may crash or hang. Seeded, so a failure
/// repeats.
@Suite struct CoreDataArchiveFuzzTests {
    /// A real cache when the real files are present, else an mrq archive
    /// of the richest fixture.
    static func sampleArchive() throws -> Data {
        if RealFiles.present { return try RealFiles.cache("RMAdminStore-Local.sqlite") }
        return try ModelFixtures.load("Everything.xcdatamodel").coreDataArchive()
    }

    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    }

    /// Throws nothing but `ModelError`; a model is fine too.
    static func load(_ body: () throws -> ManagedObjectModel) -> Bool {
        do {
            _ = try body()
            return true
        } catch is ModelError {
            return false
        } catch {
            Issue.record("unexpected error \(type(of: error)): \(error)")
            return false
        }
    }

    @Test func testTruncatedArchivesThrow() throws {
        let archive = try Self.sampleArchive()
        var random = Random(state: 1)
        for _ in 0..<150 {
            let length = random.below(archive.count)
            #expect(!Self.load { try ManagedObjectModel(coreDataArchive: archive.prefix(length)) }, "length \(length)")
        }
    }

    @Test func testBitFlippedArchivesNeverCrash() throws {
        let archive = try Self.sampleArchive()
        var random = Random(state: 2)
        var loaded = 0
        for _ in 0..<400 {
            var bytes = [UInt8](archive)
            for _ in 0...random.below(4) {
                bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8))
            }
            if Self.load({ try ManagedObjectModel(coreDataArchive: Data(bytes)) }) { loaded += 1 }
        }
        // Most flips land in strings or numbers and still read; that some
        // do not is what the loop is for.
        #expect(loaded < 400)
    }

    /// The same archive as XML, which Foundation reads: damaged, it must
    /// throw or read, never crash.
    @Test func testBitFlippedXMLArchivesNeverCrash() throws {
        let binary = try Self.sampleArchive()
        let plist = try PropertyListSerialization.propertyList(from: binary, format: nil)
        let xml = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        #expect(Self.load { try ManagedObjectModel(coreDataArchive: xml) })
        var random = Random(state: 5)
        for round in 0..<300 {
            var bytes = [UInt8](xml)
            if round % 3 == 0 {
                bytes = Array(bytes.prefix(random.below(bytes.count)))
            } else {
                for _ in 0...random.below(4) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(7)) }
            }
            _ = Self.load { try ManagedObjectModel(coreDataArchive: Data(bytes)) }
        }
    }

    @Test func testDamagedModelCachesThrow() throws {
        let blob = Deflate.compress(try Self.sampleArchive())
        var random = Random(state: 3)
        for round in 0..<200 {
            var bytes = [UInt8](blob)
            if round % 2 == 0 {
                bytes = Array(bytes.prefix(random.below(bytes.count)))
            } else {
                for _ in 0...random.below(3) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
            }
            _ = Self.load { try ManagedObjectModel(modelCache: Data(bytes)) }
        }
        #expect(!Self.load { try ManagedObjectModel(modelCache: Data(blob.prefix(blob.count / 2))) })
    }

    /// Swaps fields between objects and drops others: every reference the
    /// decoder follows meets the wrong class, a dangling or cyclic UID, or
    /// a missing key somewhere.
    @Test func testShuffledObjectGraphsNeverCrash() throws {
        let original = try KeyedArchive(try Self.sampleArchive())
        var random = Random(state: 4)
        var fieldValues: [PlistValue] = []
        let originalObjects = try original.allObjects()
        for case .dictionary(let fields) in originalObjects {
            fieldValues += fields.filter { $0.key != "$class" }.map(\.value)
        }
        for _ in 0..<300 {
            var objects = originalObjects
            for _ in 0...random.below(6) {
                let index = random.below(objects.count)
                guard case .dictionary(var fields) = objects[index], !fields.isEmpty else { continue }
                let keys = fields.keys.sorted()
                let key = keys[random.below(keys.count)]
                switch random.below(3) {
                case 0: fields[key] = nil
                case 1: fields[key] = fieldValues[random.below(fieldValues.count)]
                default: fields[key] = objects[random.below(objects.count)]
                }
                objects[index] = .dictionary(fields)
            }
            let archive = KeyedArchive(objects: objects, top: original.top)
            var decoder = CoreDataModelDecoder(archive)
            do {
                let result = try decoder.decode()
                _ = try? ManagedObjectModel(entities: result.entities, configurations: result.configurations)
            } catch is KeyedArchiveError {
            } catch is ModelError {
            } catch {
                Issue.record("unexpected error \(type(of: error)): \(error)")
            }
        }
    }
}
