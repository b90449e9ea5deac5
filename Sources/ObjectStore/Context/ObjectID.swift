import Foundation
import Synchronization

/// The identity of one object: its entity and its row, or a temporary
/// number before its first save.
///
/// ```swift
/// let id = person.objectID
/// id.isTemporaryID          // true until saved
/// id.uriRepresentation      // x-coredata://<store>/Person/p42
/// ```
///
/// Two IDs are equal when they name the same row of the same inheritance
/// hierarchy in the same store; the entity may be a more specific one once
/// known.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The entity of the object: the most specific one known (a fetch of a
    /// parent entity may learn the sub-entity later).
    public let entity: EntityDescription
    /// The row's primary key when permanent; a negative number when temporary.
    public let primaryKey: Int64
    /// The store holding the row, as a `StoreNumber`: a
    /// string here would be retained and released with every copy of
    /// every ID.
    let storeNumber: StoreNumber

    /// The identifier of the store holding the row.
    public var storeIdentifier: String? { storeNumber.identifier }

    /// The ID of row `primaryKey` of `entity` in the store whose identifier
    /// is `storeIdentifier` (`PersistentStore.identifier`). A context's
    /// `object(with:)` turns it into an object.
    public init(entity: EntityDescription, primaryKey: Int64, storeIdentifier: String?) {
        self.init(entity: entity, primaryKey: primaryKey, store: StoreNumber(storeIdentifier))
    }

    package init(entity: EntityDescription, primaryKey: Int64, store: StoreNumber) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.storeNumber = store
    }

    private static let temporaryCounter = Atomic<Int64>(0)

    /// A new temporary ID, unique in this process.
    static func temporary(for entity: EntityDescription) -> ObjectID {
        let n = temporaryCounter.add(1, ordering: .relaxed).newValue
        return ObjectID(entity: entity, primaryKey: -n, store: .none)
    }

    /// Every temporary ID made from now on has a primary key below this
    /// one (see `ManagedObjectContext.undoingAsOneAction`).
    static var nextTemporaryCeiling: Int64 {
        -temporaryCounter.load(ordering: .relaxed)
    }

    /// Whether the ID was given at insertion and the object has no row yet
    /// (Core Data's `isTemporaryID`). The save that inserts the object gives
    /// it a permanent ID.
    public var isTemporaryID: Bool { primaryKey < 0 }

    public static func == (a: ObjectID, b: ObjectID) -> Bool {
        a.primaryKey == b.primaryKey && a.entity.rootEntity === b.entity.rootEntity && a.storeNumber == b.storeNumber
    }

    /// One word standing for the ID in hashes: the row and the hierarchy.
    /// The store is left out (equality still checks it): two stores
    /// rarely hold the same row number of the same hierarchy, and hashing
    /// a string for every lookup would cost more than those collisions.
    @inline(__always)
    private var hashWord: Int {
        Int(truncatingIfNeeded: primaryKey) &* 0x9E37_79B9 ^ Int(bitPattern: ObjectIdentifier(entity.rootEntity))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hashWord)
    }

    /// Core Data's URI form: `x-coredata://STORE/Entity/pN`, or
    /// `x-coredata:///Entity/tN` while temporary.
    public var uriRepresentation: URL {
        if isTemporaryID {
            return URL(string: "x-coredata:///\(entity.name)/t\(-primaryKey)")!
        }
        return URL(string: "x-coredata://\(storeIdentifier ?? "")/\(entity.name)/p\(primaryKey)")!
    }

    public var description: String { uriRepresentation.absoluteString }
}

/// A store identifier as a small number, the same for the same identifier
/// for the life of the process; 0 stands for no store.
package struct StoreNumber: Hashable, Sendable {
    let value: UInt32

    static let none = StoreNumber(value: 0)

    private init(value: UInt32) { self.value = value }

    /// The number of `identifier`, given on first sight.
    package init(_ identifier: String?) {
        guard let identifier else { self = .none; return }
        value = Self.table.number(of: identifier)
    }

    var identifier: String? {
        value == 0 ? nil : Self.table.identifier(value)
    }

    /// Only grows: a store opened again keeps its number, and the few
    /// dozen bytes of one identifier are all a closed store leaves here.
    /// An NSLock rather than a Mutex: the thread sanitizer sees through it.
    private final class Table: @unchecked Sendable {
        private let lock = NSLock()
        private var identifiers: [String] = []
        private var numbers: [String: UInt32] = [:]

        func number(of identifier: String) -> UInt32 {
            lock.withLock {
                if let known = numbers[identifier] { return known }
                identifiers.append(identifier)
                numbers[identifier] = UInt32(identifiers.count)
                return UInt32(identifiers.count)
            }
        }

        func identifier(_ number: UInt32) -> String {
            lock.withLock { identifiers[Int(number) - 1] }
        }
    }

    private static let table = Table()
}
