import CSQLite
import Foundation
import Predicates

/// Core Data's external binary storage (`allowsExternalBinaryDataStorage`):
/// the column's first byte says where the value is. 1: the data follows
/// in the column. 2: the name of a file (a UUID, NUL-terminated) in the
/// folder `.<store name>_SUPPORT/_EXTERNAL_DATA` beside the store.
///
/// The name comes from the file, so it is read as `ContainedFile` reads:
/// one plain name, in that folder and nowhere else, with no symbolic link
/// followed on the way (not the file, not `_EXTERNAL_DATA`, not
/// `.<store name>_SUPPORT`), a regular file and no bigger than
/// ``sizeLimit``. A value that cannot be read so — refused, missing,
/// too big — is never shown as nil or as another file's bytes: the fetch
/// throws a `StoreError` naming the row, the column, the attribute and
/// the file.
enum ExternalBinaryData {
    static let inline: UInt8 = 1
    static let external: UInt8 = 2

    /// The most bytes of one external value mrq reads: 256 MiB. Core Data
    /// moves values of more than about 100 KB out of the row, so the files
    /// are photos, documents and recordings; a bigger one is refused with
    /// its size, its name and where it is, to be examined on its own,
    /// rather than loaded whole into memory (as every value is) and then
    /// copied again to be shown (base64 for JSON). The size is checked
    /// before anything is allocated.
    static let sizeLimit = 256 << 20

    /// The folder holding the store at `path`, and the path below it of
    /// the store's external values.
    static func location(ofStoreAt path: String) -> (folder: String, components: [String]) {
        let url = URL(fileURLWithPath: path)
        let name = url.deletingPathExtension().lastPathComponent
        return (url.deletingLastPathComponent().path, [".\(name)_SUPPORT", "_EXTERNAL_DATA"])
    }

    /// The value of an externally storable attribute's column; `place`
    /// names the row, column and attribute for errors. A column that is
    /// not a blob is what SQLite holds.
    static func decode(_ statement: Statement, column: Int32, store: SQLiteStore, _ place: () -> String) throws -> Value {
        guard sqlite3_column_type(statement.handle, column) == SQLITE_BLOB else { return statement.value(at: column) }
        return try decode(statement.data(at: column), storePath: store.path, place)
    }

    static func decode(_ stored: Data, storePath: String, _ place: () -> String) throws -> Value {
        guard let marker = stored.first else { return .data(stored) }
        switch marker {
        case inline:
            return .data(stored.dropFirst())
        case external:
            let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
            let (folder, components) = location(ofStoreAt: storePath)
            do {
                return .data(try ContainedFile.read(components + [name], below: folder, limit: sizeLimit))
            } catch let refusal as ContainedFile.Refusal {
                throw StoreError(refusal.kind == .missing ? .notFound : .corrupt,
                                 "\(place()): its external data \(refusal.description)\(advice(refusal))")
            }
        default:
            return .data(stored)
        }
    }

    /// What to do about a refusal, when there is something to do.
    private static func advice(_ refusal: ContainedFile.Refusal) -> String {
        switch refusal.kind {
        case .missing: " (copy the store's support folder along with it)"
        case .tooLarge: ": examine the file on its own"
        default: ""
        }
    }

    /// What the column holds for `value`: always inline (Core Data reads
    /// inline values whatever their size).
    static func encode(_ value: Value) -> Value {
        guard case .data(let data) = value else { return value }
        var stored = Data([inline])
        stored.append(data)
        return .data(stored)
    }
}
