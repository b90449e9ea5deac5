import Foundation
import Predicates

/// SQL as a value: text with slots where values go, and the values; built
/// by appending, written as a statement's text only by a dialect, once,
/// when the statement is made (as GRDB's `SQL` literals are).
///
/// ```swift
/// var sql: SQL = "SELECT COUNT(*) FROM \(table) t WHERE t.\(column) > "
/// sql.appendParameter(.int(18))
/// sql += " AND t._pk" + dialect.keyLists([1, 2, 3], chunkSize: 500)[0]
/// sql.rendered(by: SQLiteDialect()).text   // … t."age" > ?1 AND t._pk IN (?, ?, ?)
/// ```
///
/// A slot names a value by its place in `bindings`: appending one SQL to
/// another appends its values and moves its slots after the first's, and
/// no text is read back to renumber one. A fragment the translator writes
/// for one statement refers to the translator's values (it holds none of
/// its own) and so can stand twice in the statement for the same value
/// (`length(?3) > 0 AND substr(x, 1, length(?3)) = ?3`). The translator
/// writes each parameter's text as it goes, for the place its value has
/// (`Kind.written`): a statement whose parameters kept their places (a
/// plan's WHERE after a head binding nothing) is its text as it stands;
/// one moved by values put before it is written again from its slot.
///
/// Text appended is SQL text of mrq's own: identifiers come in as
/// ``SQLIdentifier``s (quoted) and values only as parameters.
package struct SQL: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The text around the slots, as UTF-8: appended to as bytes (a
    /// String's append checks its representation at every call) and made
    /// a String once, when a dialect writes the statement.
    private var text: [UInt8]
    /// Where values go in `text`, in order; each slot's offset counts
    /// from `slotBase`.
    private(set) var slots: [Slot]
    /// Added to every slot's offset: text put before SQL (`"(\(sql))"`,
    /// `"SELECT … WHERE \(condition)"`) moves its slots by its length
    /// without copying them.
    private var slotBase = 0
    /// The values the slots hold, in the order they were bound.
    package private(set) var bindings: [Value]
    /// For a condition known without its rows (`SQL.always`): whether it
    /// holds; nil for any other SQL, and once anything is appended.
    package private(set) var truth: Bool?

    /// A place in `text` where the dialect writes parameters.
    struct Slot: Sendable, Equatable {
        /// The UTF-8 offset in `text`.
        var offset: Int
        var kind: Kind
    }

    enum Kind: Sendable, Equatable {
        /// `bindings[index]`, typed as the dialect types its value, or as
        /// `type` (a type of the dialect) when given.
        case parameter(Int, type: String?)
        /// `bindings[index]` as `.parameter`, whose text the translator
        /// wrote already (`length` bytes at the slot), numbered as the
        /// parameter `written` (its index then): the text stands as long as
        /// the parameter keeps that place, and is written again only when
        /// SQL put before it with values of its own has moved it.
        case written(Int, type: String?, written: Int, length: Int)
        /// The `n`th value (from 0) bound after all of the statement's
        /// own, when it runs (a LIMIT, keys found then), as `type`.
        case later(Int, type: String)
        /// A list of `count` keys held by `bindings[values]` (one value a
        /// key in SQLite, one array in PostgreSQL): every parameter to
        /// run, the first and `…` to explain; `numbered` as `?n` or `?`.
        case keys(Range<Int>, count: Int, numbered: Bool)
    }

    /// Empty SQL.
    package init() {
        text = []
        slots = []
        bindings = []
    }

    /// The condition that always holds (`truth`), or never, as `text`
    /// writes it in the dialect.
    package static func always(_ truth: Bool, _ text: String) -> SQL {
        var sql = SQL(sql: text)
        sql.truth = truth
        return sql
    }

    /// Equal SQL: the same text, slots and values.
    package static func == (a: SQL, b: SQL) -> Bool {
        guard a.text == b.text, a.bindings == b.bindings, a.slots.count == b.slots.count else { return false }
        for (x, y) in zip(a.slots, b.slots) where x.offset + a.slotBase != y.offset + b.slotBase || x.kind != y.kind {
            return false
        }
        return true
    }

    /// `text`, SQL of mrq's own holding no slot.
    package init(sql text: String) {
        self.text = Array(text.utf8)
        slots = []
        bindings = []
    }

    /// `text` whose parameters are written already (`?1`, … in the order
    /// of `bindings`), with their values.
    package init(written text: String, bindings: [Value]) {
        self.text = Array(text.utf8)
        slots = []
        self.bindings = bindings
    }

    package init(stringLiteral value: String) { self.init(sql: value) }

    package init(stringInterpolation: Interpolation) { self = stringInterpolation.sql }

    /// Builds SQL from a literal with SQL, identifiers and numbers in it.
    package struct Interpolation: StringInterpolationProtocol {
        var sql = SQL()
        package init(literalCapacity: Int, interpolationCount: Int) {
            sql.text.reserveCapacity(literalCapacity + 12 * interpolationCount)
        }
        package mutating func appendLiteral(_ literal: String) { sql.append(literal) }
        /// SQL, its values with it.
        package mutating func appendInterpolation(_ other: SQL) { sql += other }
        /// An identifier, quoted.
        package mutating func appendInterpolation(_ identifier: SQLIdentifier) { sql.append(identifier.quoted) }
        /// SQL text of mrq's own (an alias, a keyword, a number).
        package mutating func appendInterpolation(_ text: String) { sql.append(text) }
        /// A number of mrq's own (a code, a count), as text.
        package mutating func appendInterpolation(_ number: some BinaryInteger) { sql.append(String(number)) }
    }

    /// Whether there is no text and no slot.
    package var isEmpty: Bool { text.isEmpty && slots.isEmpty }

    /// Appends SQL text of mrq's own.
    package mutating func append(_ text: String) {
        guard !text.isEmpty else { return }
        truth = nil
        self.text.appendUTF8(of: text)
    }

    /// Appends the decimal digits of `number`, not negative (a code, a
    /// count of mrq's own), without making a String of them.
    package mutating func append(number: Int) {
        truth = nil
        text.appendDecimal(number)
    }

    /// Appends `other`: its values after these, its slots after this text.
    package mutating func append(_ other: SQL) {
        if isEmpty && bindings.isEmpty {
            self = other
            return
        }
        truth = nil
        if !other.slots.isEmpty && slots.isEmpty && bindings.isEmpty {
            // Text only so far: `other`'s slots move by its length as they are.
            slotBase = text.count + other.slotBase
            slots = other.slots
        } else if !other.slots.isEmpty {
            let offset = text.count + other.slotBase - slotBase
            let shift = bindings.count
            for var slot in other.slots {
                slot.offset += offset
                switch slot.kind {
                case .parameter(let index, let type): slot.kind = .parameter(index + shift, type: type)
                case .written(let index, let type, let written, let length):
                    slot.kind = .written(index + shift, type: type, written: written, length: length)
                case .keys(let values, let count, let numbered):
                    slot.kind = .keys((values.lowerBound + shift)..<(values.upperBound + shift), count: count, numbered: numbered)
                case .later: break
                }
                slots.append(slot)
            }
        }
        text.append(contentsOf: other.text)
        if bindings.isEmpty { bindings = other.bindings } else { bindings += other.bindings }
    }

    package static func += (lhs: inout SQL, rhs: SQL) { lhs.append(rhs) }
    package static func += (lhs: inout SQL, rhs: String) { lhs.append(rhs) }

    package static func + (lhs: SQL, rhs: SQL) -> SQL {
        var sql = lhs
        sql.append(rhs)
        return sql
    }

    package static func + (lhs: SQL, rhs: String) -> SQL {
        var sql = lhs
        sql.append(rhs)
        return sql
    }

    package static func + (lhs: String, rhs: SQL) -> SQL { SQL(sql: lhs) + rhs }

    /// Makes room for `slots` more slots and `bytes` more bytes of text: a
    /// writer that knows about how much it writes (a plan's WHERE) grows
    /// its lists once rather than at every doubling.
    package mutating func reserve(slots: Int, bytes: Int) {
        self.slots.reserveCapacity(self.slots.count + slots)
        text.reserveCapacity(text.count + bytes)
    }

    /// Binds `value` here, as the dialect types it (or as `type`, a type of
    /// the dialect).
    package mutating func appendParameter(_ value: Value, type: String? = nil) {
        truth = nil
        slots.append(Slot(offset: text.count - slotBase, kind: .parameter(bindings.count, type: type)))
        bindings.append(value)
    }

    /// A slot for the value another holds at `index` (the translator's
    /// fragments name its values by their place: see the type's notes),
    /// with `parameter`, the text the dialect writes for it there, written
    /// now: a statement whose parameters all keep their places is written
    /// without a pass over its slots (`rendered`).
    mutating func appendSlot(for index: Int, type: String? = nil, written parameter: String) {
        truth = nil
        slots.append(Slot(offset: text.count - slotBase,
                          kind: .written(index, type: type, written: index, length: parameter.utf8.count)))
        text.appendUTF8(of: parameter)
    }

    /// Where the SQL ends now: `truncate(to:)` goes back there. A
    /// writer that appends a part it may yet refuse (the translator's
    /// conjuncts) marks first and truncates on refusal.
    struct Mark {
        fileprivate let bytes: Int
        fileprivate let slots: Int
        fileprivate let bindings: Int
        fileprivate let truth: Bool?
    }

    /// The end of the SQL as it stands.
    var mark: Mark { Mark(bytes: text.count, slots: slots.count, bindings: bindings.count, truth: truth) }

    /// Drops what was appended after `mark`.
    mutating func truncate(to mark: Mark) {
        if text.count > mark.bytes { text.removeSubrange(mark.bytes...) }
        if slots.count > mark.slots { slots.removeSubrange(mark.slots...) }
        if bindings.count > mark.bindings { bindings.removeSubrange(mark.bindings...) }
        truth = mark.truth
    }

    /// `value`, bound.
    package static func parameter(_ value: Value, type: String? = nil) -> SQL {
        var sql = SQL()
        sql.appendParameter(value, type: type)
        return sql
    }

    /// A parameter for the `n`th value (from 0) the statement binds after
    /// its own when it runs, as `type`: a LIMIT, keys found then.
    package static func boundLater(_ n: Int = 0, type: String) -> SQL {
        var sql = SQL()
        sql.slots.append(Slot(offset: 0, kind: .later(n, type: type)))
        return sql
    }

    /// A list of `count` keys bound as `values` (see `Kind.keys`): what a
    /// dialect's `keyLists` writes between its own text.
    package static func keys(_ values: [Value], count: Int, numbered: Bool) -> SQL {
        var sql = SQL()
        sql.slots.append(Slot(offset: 0, kind: .keys(0..<values.count, count: count, numbered: numbered)))
        sql.bindings = values
        return sql
    }

    /// The values of a fragment written for `translator`'s statement,
    /// which names them by place: the statement's SQL.
    consuming func binding(_ values: [Value]) -> SQL {
        var sql = self
        sql.bindings = values
        return sql
    }

    /// Parts joined by `separator`.
    package static func joined(_ parts: some Sequence<SQL>, separator: String) -> SQL {
        var sql = SQL()
        var first = true
        for part in parts {
            if !first { sql.append(separator) }
            first = false
            sql.append(part)
        }
        return sql
    }

    /// The statement's text as `dialect` writes it, and the values it binds;
    /// `explained`, each list of keys as its first parameter and `…`.
    ///
    /// ```swift
    /// let (text, values) = sql.rendered(by: store.dialect)
    /// ```
    ///
    /// `head`, SQL text of mrq's own without slots, is written before it
    /// (`SELECT COUNT(*) FROM "Person" t WHERE ` before a condition): the
    /// statement is written once, into one buffer, not composed as SQL
    /// first.
    package func rendered(by dialect: some SQLDialect, after head: String = "",
                          explained: Bool = false) -> (text: String, bindings: [Value]) {
        if slots.allSatisfy(\.keepsItsText) {
            // Every parameter written already where it stands: the head and
            // the text, as they are, in one String.
            return (String(joining: head, text), bindings)
        }
        // The head, the text's bytes between the slots, and each slot as
        // the dialect writes it, into one buffer: one String made at the end.
        var out: [UInt8] = []
        out.reserveCapacity(head.utf8.count + text.count + 6 * slots.count)
        out.appendUTF8(of: head)
        var at = 0
        for slot in slots {
            let offset = slot.offset + slotBase
            out.append(contentsOf: text[at..<offset])
            at = offset
            switch slot.kind {
            case .parameter(let index, let type):
                write(index, type: type, by: dialect, to: &out)
            case .written(let index, let type, let written, let length):
                guard index != written else { continue }
                at += length
                write(index, type: type, by: dialect, to: &out)
            case .later(let n, let type):
                out.append(contentsOf: dialect.parameter(bindings.count + n + 1, type: type).utf8)
            case .keys(let values, _, let numbered):
                out.append(contentsOf: dialect.keyList(parameters: (values.lowerBound + 1)..<(values.upperBound + 1),
                                                       numbered: numbered, explained: explained).utf8)
            }
        }
        out.append(contentsOf: text[at...])
        return (String(decoding: out, as: UTF8.self), bindings)
    }

    /// The `index`th value's parameter as `dialect` writes it, typed as
    /// `type` when given.
    private func write(_ index: Int, type: String?, by dialect: some SQLDialect, to out: inout [UInt8]) {
        if let type {
            out.append(contentsOf: dialect.parameter(index + 1, type: type).utf8)
        } else {
            dialect.writeParameter(index + 1, of: bindings.indices.contains(index) ? bindings[index] : .null, to: &out)
        }
    }

    /// The values as `explain` lists them: each list of keys as its count.
    package var explainedBindings: [FetchExplanation.Binding] {
        var keyLists: [(Range<Int>, Int)] = []
        for slot in slots { if case .keys(let values, let count, _) = slot.kind { keyLists.append((values, count)) } }
        var result: [FetchExplanation.Binding] = []
        var index = 0
        while index < bindings.count {
            if let list = keyLists.first(where: { $0.0.lowerBound == index }), !list.0.isEmpty {
                result.append(.keys(list.1))
                index = list.0.upperBound
            } else {
                result.append(.value(bindings[index]))
                index += 1
            }
        }
        return result
    }
}

extension SQL.Slot {
    /// Whether the slot's text is in the SQL's text already, as it is to
    /// be written: a parameter the translator wrote, still at its place.
    var keepsItsText: Bool {
        if case .written(let index, _, let written, _) = kind { return index == written }
        return false
    }
}

extension String {
    /// `head` followed by the UTF-8 `bytes`, made once.
    init(joining head: String, _ bytes: [UInt8]) {
        var head = head
        self = head.withUTF8 { first in
            String(unsafeUninitializedCapacity: first.count + bytes.count) { buffer in
                let end = buffer.initialize(fromContentsOf: first)
                return UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: bytes) + end
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `string`'s UTF-8 from its storage in one copy (appending its
    /// `utf8` view went through the generic sequence path: ~160
    /// instructions a fragment, workload e).
    /// Read in place where the string allows (a native or small one
    /// does), without the copy `withUTF8` makes of the string to borrow
    /// it mutably: one retain and release less a fragment.
    mutating func appendUTF8(of string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) != nil { return }
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }
}

extension DefaultStringInterpolation {
    /// SQL in a `String` would lose its values and slots: write it with
    /// `SQL.rendered(by:)`, or build SQL (`let sql: SQL = "…"`).
    @available(*, unavailable, message: "SQL goes into SQL, not a String: render it with a dialect")
    package mutating func appendInterpolation(_ sql: SQL) {}
}
