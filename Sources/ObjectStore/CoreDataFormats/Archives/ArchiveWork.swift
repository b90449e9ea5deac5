import Foundation

/// The work one reading of a keyed archive may do, counted as it is done:
/// objects visited (not objects stored) and bytes of strings and data
/// handed out. Every `KeyedArchive` has one, shared by its copies, and
/// every object it resolves and every value it returns is charged to it.
///
/// ```swift
/// let archive = try KeyedArchive(data)
/// _ = try archive.value(at: archive.topReference())
/// archive.work.visits   // objects visited so far
/// ```
///
/// Why: an archive's objects point at each other by number, so a few
/// hundred bytes can hold an array whose two elements are the same array
/// of two elements, forty times over: 80 objects stored, 2⁴⁰ visited by a
/// reader that walks it as a tree (a default value, a predicate, a fetch
/// request). The same goes for a long string met through many paths, which
/// a predicate's printed text would copy each time. Past the limits the
/// reading stops with a `KeyedArchiveError`.
///
/// The limits grow with the archive, so that no real model reaches them:
/// decoding a model visits about one object per object stored (each
/// entity, property, value and predicate once; a sub-entity reads its
/// parent's property names again), as the fixtures and a generated model
/// of 120 entities in hierarchies show; 16 visits per stored object, and
/// never fewer than 100,000 in all, leave a wide margin. A string or data
/// is charged its length, and the bytes handed out may reach 16 times the
/// archive's size, and never less than 16 MiB: a real reader hands each
/// string out once or twice (the same model: 0.03 bytes handed out per
/// byte of archive). A hostile archive thus costs work in proportion to
/// its size: 100,000 visits take about a second in a debug build.
package final class ArchiveWork {
    /// Objects that may be visited per object the archive stores.
    package static let visitsPerObject = 16
    /// Visits allowed however small the archive.
    package static let minimumVisits = 100_000
    /// Bytes that may be handed out per byte of the archive.
    package static let bytesPerArchiveByte = 16
    /// Bytes allowed however small the archive.
    package static let minimumBytes = 16 << 20

    /// The most objects that may be visited.
    package let visitLimit: Int
    /// The most bytes of strings and data that may be handed out.
    package let byteLimit: Int
    // Counted at every object and value an archive's reading visits, by
    // the one thread reading the archive (templates read later do so under
    // the model's lock): the counts skip the runtime's exclusivity
    // bookkeeping (mrq-bench w. corpus's largest model).
    @exclusivity(unchecked) private var visitCount = 0
    @exclusivity(unchecked) private var byteCount = 0

    /// Objects visited so far.
    package var visits: Int { visitCount }
    /// Bytes of strings and data handed out so far.
    package var bytes: Int { byteCount }

    /// Limits for an archive of `objects` objects read from `archiveBytes`
    /// bytes (0 when unknown).
    package init(objects: Int, archiveBytes: Int) {
        let (visits, overflow) = objects.multipliedReportingOverflow(by: Self.visitsPerObject)
        visitLimit = Swift.max(Self.minimumVisits, overflow ? .max : visits)
        let (bytes, bytesOverflow) = archiveBytes.multipliedReportingOverflow(by: Self.bytesPerArchiveByte)
        byteLimit = Swift.max(Self.minimumBytes, bytesOverflow ? .max : bytes)
    }

    /// Counts one object visited at `place`; throws past the limit.
    func visit(_ place: @autoclosure () -> String) throws {
        visitCount += 1
        guard visitCount <= visitLimit else {
            throw KeyedArchiveError("\(place()): reading the archive visits more than \(visitLimit) objects "
                + "(its objects point at each other so that they expand past any real model)")
        }
    }

    /// Counts `count` bytes of a string or data handed out at `place`;
    /// throws past the limit.
    func hand(_ count: Int, _ place: @autoclosure () -> String) throws {
        byteCount += count
        guard byteCount <= byteLimit else {
            throw KeyedArchiveError("\(place()): reading the archive hands out more than \(byteLimit) bytes of strings and data "
                + "(its objects point at each other so that they expand past any real model)")
        }
    }

    /// Charges what `value` holds of strings and data.
    func hand(_ value: ArchivedValue, _ place: @autoclosure () -> String) throws {
        switch value {
        case .string(let s): try hand(s.utf8.count, place())
        case .data(let d): try hand(d.count, place())
        default: break
        }
    }
}
